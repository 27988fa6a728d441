// Column and index shapes that migrations share. Every table keys on (workspace_id, id); references are
// composite foreign keys within the workspace; a list filter's index starts with workspace_id and ends with
// id (lists are keyset pages by id). Changing these changes what a fresh installation creates: keep them as
// they are and add new shapes beside them.
import type { CreateTableBuilder, Kysely } from 'kysely';

// Column names are not tracked: the helpers add columns to any table.
export type Table = CreateTableBuilder<string, any>;

/** workspace_id and id, both required: the table's key columns. */
export const base = (table: Table) =>
  table.addColumn('workspace_id', 'text', (c) => c.notNull()).addColumn('id', 'text', (c) => c.notNull());

export const timestamps = (table: Table) =>
  table
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull());

/** A reference to another record of the same workspace. */
export const references = (table: Table, name: string, column: string, target: string) =>
  table.addForeignKeyConstraint(name, ['workspace_id', column], target, ['workspace_id', 'id']);

/** The index of a list filter: `<table>_<name>` on (workspace_id, ...columns, id). */
export async function listIndex(db: Kysely<any>, table: string, name: string, columns: string[]) {
  await db.schema
    .createIndex(`${table}_${name}`)
    .on(table)
    .columns(['workspace_id', ...columns, 'id'])
    .execute();
}
