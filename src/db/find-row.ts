import type { Kysely } from 'kysely';
import type { DB } from './tables.ts';

/** Tables keyed by (workspace_id, id). */
export type WorkspaceTable = {
  [K in keyof DB]: DB[K] extends { workspace_id: string; id: string } ? K : never;
}[keyof DB];

/** One row of a workspace table by ID; undefined when it is missing or belongs to another workspace. */
export function findRow<T extends WorkspaceTable>(
  db: Kysely<DB>,
  table: T,
  workspaceId: string,
  id: string,
): Promise<DB[T] | undefined> {
  return db
    .selectFrom(table as 'contacts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst() as Promise<DB[T] | undefined>;
}
