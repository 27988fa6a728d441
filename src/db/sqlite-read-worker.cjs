// A heavy-read worker process (src/db/sqlite-read-pool.ts): one read-only SQLite connection to the
// service's file, running the compiled queries the parent sends, one at a time. It is a process, not a
// thread, because better-sqlite3 cannot interrupt a running statement and a worker thread stuck in one
// cannot be stopped (terminate() waits for the statement, and so does process exit): a process can be killed.
const Database = require('better-sqlite3');

const db = new Database(process.argv[2], { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('query_only = ON');

const STATEMENT_CACHE_SIZE = 200;
const statements = new Map();

function prepare(text) {
  let statement = statements.get(text);
  if (!statement) {
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
    statement = db.prepare(text);
    statements.set(text, statement);
  }
  return statement;
}

process.on('message', (message) => {
  try {
    const statement = prepare(message.sql);
    if (statement.reader) {
      process.send({ id: message.id, rows: statement.all(message.parameters) });
    } else {
      // A write: run() fails on the read-only connection, and that error is the answer.
      statement.run(message.parameters);
      process.send({ id: message.id, rows: [] });
    }
  } catch (error) {
    process.send({ id: message.id, error: { message: String(error?.message ?? error), code: error?.code } });
  }
});

// The parent went away (closed, or crashed): nothing else will ask for work.
process.on('disconnect', () => {
  db.close();
  process.exit(0);
});

process.send({ ready: true });
