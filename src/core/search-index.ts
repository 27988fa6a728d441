// The trigram index behind every `query` search (docs/contract.md section 17): on PostgreSQL one pg_trgm
// GIN index per table over its lowered searchable columns; on SQLite an FTS5 table (trigram tokenizer)
// over the same columns, kept in step with the table by triggers, so rows written by any path (imports,
// migrations, a seeder writing rows directly) are searchable.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../db/dialect.ts';

/** The FTS5 table of a searchable table on SQLite. */
export const searchTableName = (table: string): string => `${table}_search`;

/** lower(coalesce(column, '')): the expression the queries match and the PostgreSQL index covers. */
export const loweredColumn = (column: string): string => `lower(coalesce(${column}, ''))`;

// pg_trgm is per database while each schema runs its own migrations (tests run many schemas of one
// database in parallel): take a database-wide advisory lock so two schemas never race to create it.
const EXTENSION_LOCK = 0x7767_7472; // "wgtr"

/**
 * Creates pg_trgm when missing (it ships with PostgreSQL; it is a trusted extension, so the database
 * owner may create it) and returns the schema holding it, whose operator class the indexes name: the
 * service's search_path is its own schema only, and that name resolves from any schema.
 */
export async function ensurePgTrgm(db: Kysely<any>): Promise<string> {
  const installed = async () =>
    (
      await sql<{
        schema: string;
      }>`select extnamespace::regnamespace::text as schema from pg_extension where extname = 'pg_trgm'`.execute(
        db,
      )
    ).rows[0]?.schema;
  const found = await installed();
  if (found) return found;
  try {
    await sql`select pg_advisory_xact_lock(${EXTENSION_LOCK})`.execute(db);
    await sql`create extension if not exists pg_trgm with schema public`.execute(db);
  } catch (error) {
    throw new Error(
      `wos needs the PostgreSQL extension pg_trgm for its search indexes and could not create it (${
        (error as Error).message
      }). It ships with PostgreSQL (the postgresql-contrib package on some systems): have a superuser run ` +
        '"CREATE EXTENSION pg_trgm WITH SCHEMA public;" in this database, then start wos again.',
    );
  }
  const created = await installed();
  if (!created) throw new Error('pg_trgm was created but is not listed in pg_extension');
  return created;
}

/** The statements creating the index of `table` over `columns` (dropping a previous one first) and filling it. */
export function searchIndexSql(
  table: string,
  columns: readonly string[],
  postgres: boolean,
  trgmSchema = 'public',
): string[] {
  if (postgres) {
    const keys = columns.map((c) => `${loweredColumn(c)} "${trgmSchema}".gin_trgm_ops`).join(', ');
    return [
      `drop index if exists ${table}_search`,
      `create index ${table}_search on ${table} using gin (${keys})`,
    ];
  }
  const fts = searchTableName(table);
  const list = columns.join(', ');
  const values = (row: 'new' | 'old') => columns.map((c) => `${row}.${c}`).join(', ');
  const remove = `insert into ${fts}(${fts}, rowid, ${list}) values ('delete', old.rowid, ${values('old')});`;
  const add = `insert into ${fts}(rowid, ${list}) values (new.rowid, ${values('new')});`;
  return [
    `drop table if exists ${fts}`,
    // External content: the FTS table holds only the index and reads the table's own rows when rebuilding.
    // The table's rowid is its key: VACUUM keeps rowids of tables it copies whole.
    `create virtual table ${fts} using fts5(${list}, content='${table}', content_rowid='rowid', tokenize='trigram')`,
    `create trigger ${fts}_insert after insert on ${table} begin ${add} end`,
    `create trigger ${fts}_delete after delete on ${table} begin ${remove} end`,
    `create trigger ${fts}_update after update of ${list} on ${table} begin ${remove} ${add} end`,
    `insert into ${fts}(${fts}) values ('rebuild')`,
  ];
}

/**
 * Creates (or recreates) the search index of each table over its columns, from its current rows. A
 * migration passes the columns as it was written with, never a list that changes later.
 */
export async function createSearchIndexes(
  db: Kysely<any>,
  tables: Readonly<Record<string, readonly string[]>>,
): Promise<void> {
  const postgres = isPostgres(db);
  const schema = postgres ? await ensurePgTrgm(db) : undefined;
  for (const [table, columns] of Object.entries(tables)) {
    for (const statement of searchIndexSql(table, columns, postgres, schema)) {
      await sql.raw(statement).execute(db);
    }
    // The planner estimates a LIKE through the statistics of the indexed expressions.
    if (postgres) await sql.raw(`analyze ${table}`).execute(db);
  }
}
