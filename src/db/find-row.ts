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

/** Inserts rows of a workspace table as given (each carries its workspace_id). */
export async function insertRows<T extends WorkspaceTable>(
  db: Kysely<DB>,
  table: T,
  rows: DB[T] | DB[T][],
): Promise<void> {
  if (Array.isArray(rows) && rows.length === 0) return;
  await db
    .insertInto(table as 'contacts')
    .values(rows as never)
    .execute();
}

/** Sets columns of one row of a workspace table, found by workspace and ID. */
export async function updateRow<T extends WorkspaceTable>(
  db: Kysely<DB>,
  table: T,
  workspaceId: string,
  id: string,
  changes: Partial<DB[T]>,
): Promise<void> {
  await db
    .updateTable(table as 'contacts')
    .set(changes as never)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
