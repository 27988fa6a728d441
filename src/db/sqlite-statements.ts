// The main SQLite connection as Kysely's driver sees it: prepared statements kept by SQL text (Kysely would
// prepare every query anew), and rows read as arrays and built into objects here. better-sqlite3 builds each
// row object through V8's API, a property at a time: about 30% of reading a page of 25 rows.
import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

const STATEMENT_CACHE_SIZE = 500;

type Row = Record<string, unknown>;

export function statementCache(sqlite: SQLite.Database): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  // A schema change (a migration here, or by another process) can change what a cached `select *` returns:
  // the column names are read again whenever schema_version has moved.
  const schemaVersion = sqlite.prepare('pragma schema_version').pluck();
  const currentVersion = () => schemaVersion.get() as number;
  return {
    close: () => sqlite.close(),
    prepare: (text: string) => {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
        const prepared = sqlite.prepare(text);
        statement = prepared.reader ? objectRows(prepared, currentVersion) : prepared;
        statements.set(text, statement);
      }
      return statement;
    },
  };
}

/** A reading statement whose rows come back as arrays and become objects of its current column names. */
function objectRows(statement: SQLite.Statement, currentVersion: () => number): SqliteStatement {
  statement.raw(true);
  let names: string[] = [];
  let namesVersion = -1;
  const currentNames = () => {
    const version = currentVersion();
    if (version !== namesVersion) {
      names = statement.columns().map((column) => column.name);
      namesVersion = version;
    }
    return names;
  };
  const toObject = (row: unknown[], columns: string[]) => {
    const object: Row = {};
    for (let c = 0; c < columns.length; c++) object[columns[c]!] = row[c];
    return object;
  };
  return {
    reader: true,
    all(parameters) {
      const rows = statement.all(parameters) as unknown[][];
      const columns = currentNames();
      const objects: Row[] = new Array(rows.length);
      for (let i = 0; i < rows.length; i++) objects[i] = toObject(rows[i]!, columns);
      return objects;
    },
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      // Before the iteration starts: while it runs, the connection takes no other statement.
      const columns = currentNames();
      const rows = statement.iterate(parameters) as IterableIterator<unknown[]>;
      for (const row of rows) yield toObject(row, columns);
    },
  };
}
