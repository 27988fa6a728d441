import type { Kysely } from 'kysely';
import { isHeavyReader } from './heavy-reads.ts';
import type { DB } from './tables.ts';

/**
 * Runs several reads as of one moment. Outside a transaction each statement sees the database as it is
 * when that statement starts, so a write committing between two of them shows half of itself (a row read
 * before a job's commit beside that job's run read after it). On PostgreSQL the reads run in a REPEATABLE
 * READ, READ ONLY transaction; on SQLite in a transaction on its one connection, which no write interleaves.
 * Inside a transaction already (a write's handler, a job's work), they run in it; on the heavy-read
 * connections, which open no transactions, they run as they are.
 */
export function readSnapshot<T>(db: Kysely<DB>, reads: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  if (db.isTransaction || isHeavyReader(db)) return reads(db);
  return db.transaction().setIsolationLevel('repeatable read').setAccessMode('read only').execute(reads);
}
