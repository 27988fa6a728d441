import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import type { DB } from './tables.ts';

/**
 * A query on the hot path of every call (the credential lookup, call-event inserts), built and compiled
 * once per database and then executed with fresh parameters: building a Kysely query costs more than
 * running it. `build` must take its parameters in the order `run` passes them. The text is kept per
 * adapter: a transaction is a new Kysely instance each time, but it shares its database's adapter (and
 * the SQL depends only on the dialect; no plugins rewrite queries here).
 */
export function reusableQuery<Row>(build: (db: Kysely<DB>) => Compilable<Row>) {
  const compiled = new WeakMap<object, string>();
  return async (db: Kysely<DB>, parameters: readonly unknown[]): Promise<Row[]> => {
    const adapter = db.getExecutor().adapter;
    let text = compiled.get(adapter);
    if (text === undefined) {
      const query = build(db).compile();
      // Constants belong in the SQL (sql.lit), so the parameters are exactly the values run passes.
      if (query.parameters.length !== parameters.length) {
        throw new Error(
          `reusableQuery: the query takes ${query.parameters.length} parameters, not ${parameters.length}`,
        );
      }
      text = query.sql;
      compiled.set(adapter, text);
    }
    const result = await db.executeQuery<Row>(CompiledQuery.raw(text, [...parameters]));
    return result.rows;
  };
}

/**
 * A one-row insert into `table` with these columns, compiled once per executor; values in column order (an
 * optional column a row leaves out is NULL).
 */
export function reusableInsert<Row extends object>(
  table: keyof DB & string,
  columns: readonly (keyof Row & string)[],
) {
  const sample = Object.fromEntries(columns.map((column) => [column, null]));
  const insert = reusableQuery((db) => db.insertInto(table as 'call_events').values(sample as never));
  return async (db: Kysely<DB>, rows: readonly Row[]): Promise<void> => {
    for (const row of rows)
      await insert(
        db,
        columns.map((column) => row[column] ?? null),
      );
  };
}
