import type { ModuleParts } from '../../../core/module.ts';
import type { BiTables } from './bi-tables.ts';

// Custom BI (issue 12): governed templates and datasets, queries, metrics, reports, dashboards, exports,
// scheduled artifacts, BI runs and insight views. docs/modules/bi.md.
export const biParts: ModuleParts<BiTables> = {
  operations: [],
};
