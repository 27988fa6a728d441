import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { ModuleName, Scope } from './catalogue.ts';
import type { OperationDefinition } from './define-operation.ts';
import type { RecordType } from './record-types.ts';

/** A section of get_workspace_summary, shown when the credential holds its scope and the module is on. */
export interface SummarySection {
  module: ModuleName;
  scope: Scope;
  /** Key of the section in the summary, e.g. crm. */
  key: string;
  compute(db: Kysely<DB>, workspaceId: string, now: string): Promise<Record<string, unknown>>;
}

export interface ModuleDefinition {
  name: ModuleName;
  operations: OperationDefinition[];
  recordTypes?: RecordType[];
  summary?: SummarySection[];
}
