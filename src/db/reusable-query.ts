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

/**
 * A multi-row statement (an insert or upsert of `rows`) built once per database and row count, then run
 * with fresh values: building a 500-row insert costs about what SQLite takes to run it. `build` gets rows
 * of NULLs in `columns`' order and must bind nothing else (constants go in the SQL), so the parameters are
 * the rows' values, column by column. Each row count is a text kept as long as the process: callers send
 * few counts (app-event-store.ts: 500 rows, then powers of two).
 */
export function reusableRows<Row extends object, Out = unknown>(
  columns: readonly (keyof Row & string)[],
  build: (db: Kysely<DB>, rows: Row[]) => Compilable<Out>,
) {
  const sample = Object.fromEntries(columns.map((column) => [column, null])) as Row;
  const compiled = new WeakMap<object, Map<number, string>>();
  return async (db: Kysely<DB>, rows: readonly Row[]): Promise<Out[]> => {
    const adapter = db.getExecutor().adapter;
    let texts = compiled.get(adapter);
    if (!texts) {
      texts = new Map();
      compiled.set(adapter, texts);
    }
    let text = texts.get(rows.length);
    if (text === undefined) {
      const query = build(
        db,
        Array.from({ length: rows.length }, () => sample),
      ).compile();
      if (query.parameters.length !== rows.length * columns.length) {
        throw new Error(
          `reusableRows: the statement takes ${query.parameters.length} parameters, not ${rows.length} x ${columns.length}`,
        );
      }
      text = query.sql;
      texts.set(rows.length, text);
    }
    const parameters: unknown[] = [];
    for (const row of rows) for (const column of columns) parameters.push(row[column] ?? null);
    const result = await db.executeQuery<Out>(CompiledQuery.raw(text, parameters));
    return result.rows;
  };
}
