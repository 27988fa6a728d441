// Every record declared with defineRecord (collected from the registry, so a module's records are covered
// as soon as it declares them) against the schema the migrations made, on the database the test runs on:
// the table has exactly the declared columns, each with the declared nullability and type family; and every
// searchable table's trigram index covers exactly the columns its `query` matches. A migration and a
// declaration that disagree fail here, not in production.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyRecord, isDeclaredRecord } from '../src/core/define-record.ts';
import type { ColumnFamily } from '../src/core/record-field.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, usingPostgres } from './helpers/harness.ts';

const registry = buildRegistry();
const records = [...registry.recordTypes.values()].filter(isDeclaredRecord);

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

interface Column {
  nullable: boolean;
  family: string;
}

/** The family of a column type as SQLite (PRAGMA table_info) or PostgreSQL (information_schema) names it. */
function familyOf(type: string): string {
  const t = type.toLowerCase();
  if (t === 'text' || t.startsWith('varchar') || t.startsWith('character')) return 'text';
  if (['integer', 'bigint', 'smallint', 'int'].includes(t)) return 'integer';
  if (['real', 'double precision', 'numeric'].includes(t)) return 'real';
  if (t === 'blob' || t === 'bytea') return 'blob';
  return t;
}

async function migratedColumns(db: Kysely<any>, table: string): Promise<Record<string, Column>> {
  const rows = usingPostgres
    ? (
        await sql<{ name: string; type: string; nullable: string }>`select column_name as name,
          data_type as type, is_nullable as nullable from information_schema.columns
          where table_schema = current_schema() and table_name = ${table}`.execute(db)
      ).rows.map((r) => ({ name: r.name, type: r.type, nullable: r.nullable === 'YES' }))
    : (
        await sql<{ name: string; type: string; notnull: number }>`select name, type, "notnull"
          from pragma_table_info(${table})`.execute(db)
      ).rows.map((r) => ({ name: r.name, type: r.type, nullable: r.notnull === 0 }));
  return Object.fromEntries(rows.map((r) => [r.name, { nullable: r.nullable, family: familyOf(r.type) }]));
}

/** The declaration's columns; a `number` field may be an integer or a real column (the one it has passes). */
function declaredColumns(record: AnyRecord, migrated: Record<string, Column>): Record<string, Column> {
  const columns: Record<string, Column> = { workspace_id: { nullable: false, family: 'text' } };
  for (const name of record.columns.filter((c) => c !== 'workspace_id')) {
    const { nullable, family } = record.fields[name]!.spec;
    const found = migrated[name]?.family;
    const accepted: ColumnFamily | string =
      family === 'number' && (found === 'integer' || found === 'real') ? found : family;
    columns[name] = { nullable, family: accepted };
  }
  return columns;
}

/** The columns of a table's search index: the FTS5 table's (SQLite), the GIN index's expressions (PostgreSQL). */
async function indexedColumns(db: Kysely<any>, table: string): Promise<string[]> {
  if (usingPostgres) {
    const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes
      where schemaname = current_schema() and indexname = ${`${table}_search`}`.execute(db);
    return [...(rows[0]?.indexdef ?? '').matchAll(/coalesce\("?(\w+)"?,/gi)].map((m) => m[1]!).sort();
  }
  const { rows } = await sql<{
    name: string;
  }>`select name from pragma_table_info(${`${table}_search`})`.execute(db);
  return rows.map((r) => r.name).sort();
}

describe('record declarations match the migrated schema', () => {
  it('finds the declared records in the registry', () => {
    expect(records.map((r) => r.table)).toEqual(
      expect.arrayContaining(['contacts', 'companies', 'deals', 'invoices', 'journal_entries', 'notes']),
    );
  });

  it.each(records.map((r) => [r.table, r] as const))(
    '%s: columns, nullability, type families',
    async (_t, r) => {
      const migrated = await migratedColumns(h.db, r.table);
      expect(Object.keys(migrated).length, `table ${r.table} not found`).toBeGreaterThan(0);
      expect(declaredColumns(r, migrated)).toEqual(migrated);
    },
  );

  it.each([...registry.searchTables].map(([table, columns]) => [table, columns] as const))(
    '%s: the search index covers the searched columns',
    async (table, columns) => {
      expect(await indexedColumns(h.db, table)).toEqual([...columns].sort());
    },
  );
});
