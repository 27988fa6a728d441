// The PostgreSQL dialect, with an introspector that looks only at the schemas on the search path. Kysely's
// migrator asks the introspector whether its own tables exist; the stock one reads every column of every
// table in every schema and resolves each table's name again (pg_get_serial_sequence), which fails with
// "relation does not exist" when another schema drops a table meanwhile (tests' schemas, partition drops).
import {
  type DatabaseIntrospector,
  type Kysely,
  PostgresDialect,
  PostgresIntrospector,
  sql,
  type TableMetadata,
} from 'kysely';

class SearchPathIntrospector extends PostgresIntrospector {
  readonly #db: Kysely<any>;

  constructor(db: Kysely<any>) {
    super(db);
    this.#db = db;
  }

  /** Tables and views of the search path's schemas, by name (no columns: nothing here reads them). */
  override async getTables(): Promise<TableMetadata[]> {
    const result = await sql<{ schema: string; name: string; kind: string }>`
      select n.nspname as schema, c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where c.relkind in ('r', 'v', 'p') and n.nspname = any (current_schemas(false))`.execute(this.#db);
    return result.rows.map((row) => ({
      name: row.name,
      schema: row.schema,
      isView: row.kind === 'v',
      columns: [],
    }));
  }
}

export class SearchPathPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new SearchPathIntrospector(db);
  }
}
