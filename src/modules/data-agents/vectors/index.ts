import type { ModuleParts } from '../../../core/module.ts';
import type { VectorTables } from './vector-tables.ts';

// Vector collections (issue 14): collections, documents, embedders, exact and approximate search.
// docs/modules/vectors.md.
export const vectorParts: ModuleParts<VectorTables> = {
  operations: [],
};
