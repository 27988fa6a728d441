// The schema stays distributable by workspace_id (docs/scaling.md, Citus): every table's primary key and
// unique indexes start with workspace_id, unless src/db/distribution-plan.ts declares it a reference or local
// table, or a known blocker. A new table that breaks the rule fails here until it is keyed by workspace or
// declared, with its reason.
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPostgres } from '../src/db/dialect.ts';
import { DISTRIBUTION_BLOCKERS, DISTRIBUTION_COLUMN, NOT_DISTRIBUTED } from '../src/db/distribution-plan.ts';
import { Harness } from './helpers/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

/** A table's primary key and unique indexes: each one's name and its first column (or expression). */
interface Keys {
  table: string;
  keys: { name: string; first: string }[];
}

async function postgresKeys(db: Kysely<any>): Promise<Keys[]> {
  // Tables of the service's schema (search_path), partitions folded into their parent.
  const rows = await sql<{ table: string; name: string | null; first: string | null }>`
    select t.relname as table, i.relname as name, pg_get_indexdef(x.indexrelid, 1, true) as first
    from pg_class t
    join pg_namespace n on n.oid = t.relnamespace and n.nspname = current_schema()
    left join pg_index x on x.indrelid = t.oid and (x.indisunique or x.indisprimary)
    left join pg_class i on i.oid = x.indexrelid
    where t.relkind in ('r', 'p') and not t.relispartition`.execute(db);
  return group(rows.rows);
}

async function sqliteKeys(db: Kysely<any>): Promise<Keys[]> {
  // Virtual tables (full-text, vectors) and their shadow tables are SQLite's own storage, not the schema's.
  const tables = await sql<{ name: string }>`
    select name from pragma_table_list where schema = 'main' and type = 'table'
      and name not like 'sqlite_%'`.execute(db);
  const rows: { table: string; name: string | null; first: string | null }[] = [];
  for (const { name: table } of tables.rows) {
    const pk = await sql<{ name: string }>`
      select name from pragma_table_info(${table}) where pk = 1`.execute(db);
    if (pk.rows[0]) rows.push({ table, name: `${table} primary key`, first: pk.rows[0].name });
    const indexes = await sql<{ name: string; origin: string }>`
      select name, origin from pragma_index_list(${table}) where "unique" = 1 and origin != 'pk'`.execute(db);
    for (const index of indexes.rows) {
      const first = await sql<{ name: string | null }>`
        select name from pragma_index_info(${index.name}) where seqno = 0`.execute(db);
      rows.push({ table, name: index.name, first: first.rows[0]?.name ?? '(expression)' });
    }
    if (!pk.rows[0] && indexes.rows.length === 0) rows.push({ table, name: null, first: null });
  }
  return group(rows);
}

function group(rows: { table: string; name: string | null; first: string | null }[]): Keys[] {
  const byTable = new Map<string, Keys>();
  for (const row of rows) {
    const entry = byTable.get(row.table) ?? { table: row.table, keys: [] };
    if (row.name !== null) entry.keys.push({ name: row.name, first: row.first ?? '(expression)' });
    byTable.set(row.table, entry);
  }
  return [...byTable.values()].sort((a, b) => a.table.localeCompare(b.table));
}

const declared = [...Object.keys(NOT_DISTRIBUTED), ...Object.keys(DISTRIBUTION_BLOCKERS)];

describe('distribution keys', () => {
  it('starts every primary key and unique index with workspace_id, or the table is declared', async () => {
    const schema = isPostgres(h.db) ? await postgresKeys(h.db) : await sqliteKeys(h.db);
    expect(schema.length).toBeGreaterThan(100);
    const offending = schema
      .filter(({ table }) => !declared.includes(table))
      .flatMap(({ table, keys }) => {
        const column = DISTRIBUTION_COLUMN[table] ?? 'workspace_id';
        return keys
          .filter((k) => k.first !== column)
          .map((k) => `${table}: ${k.name} starts with ${k.first}`);
      });
    expect(offending).toEqual([]);
    // The plan names only tables that exist, and each once.
    const tables = new Set(schema.map((t) => t.table));
    const named = [...declared, ...Object.keys(DISTRIBUTION_COLUMN)];
    expect(named.filter((t) => !tables.has(t))).toEqual([]);
    expect(new Set(named).size).toBe(named.length);
  });

  it('holds a known blocker to the rule once it is fixed, so the list only shrinks', async () => {
    // A blocker whose keys all start with workspace_id now is no longer one: remove it from the list.
    const schema = isPostgres(h.db) ? await postgresKeys(h.db) : await sqliteKeys(h.db);
    const fixed = schema
      .filter(({ table }) => table in DISTRIBUTION_BLOCKERS)
      .filter(({ keys }) => keys.every((k) => k.first === 'workspace_id'))
      .map(({ table }) => table);
    expect(fixed).toEqual([]);
  });
});
