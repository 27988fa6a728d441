import type { ModuleParts } from '../../../core/module.ts';
import * as jobs from '../migrations/0019-data-agents-jobs.ts';
import type { GovernedTables } from './governed-tables.ts';

// Governed data (issue 13): execution planes, dataset versions and manifests, execution jobs, lineage,
// decisions, insights, recommendations, source objects, knowledge artifacts. docs/modules/data-agents.md.
export const governedParts: ModuleParts<GovernedTables> = {
  migrations: { '0019-data-agents-jobs': jobs },
  operations: [],
};
