// Which database a Kysely instance talks to, for the few places where SQL differs (partitions, trigram
// indexes, triggers, session settings, locks). Everything else is written once for both.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Runs `work` while this node holds the installation-wide lock `name`, so nodes starting together do a
 * start-up step one after the other (job queue creation, the first-start bootstrap). PostgreSQL: a session
 * advisory lock on one connection of the pool, keyed by the schema and the name, which `work` receives to
 * run its statements on (a pool of one connection cannot starve it); waiting has no statement_timeout,
 * since the other node's step may take longer. SQLite: `work` runs as is on `db`: one process owns the file.
 */
export async function withInstallationLock<T, D>(
  db: Kysely<D>,
  name: string,
  work: (db: Kysely<D>) => Promise<T>,
): Promise<T> {
  if (!isPostgres(db)) return work(db);
  return db.connection().execute(async (connection) => {
    const key = sql`hashtextextended('wos:' || current_schema() || ':' || ${name}, 0)`;
    await sql`set statement_timeout = 0`.execute(connection);
    await sql`select pg_advisory_lock(${key})`.execute(connection);
    try {
      return await work(connection);
    } finally {
      await sql`select pg_advisory_unlock(${key})`.execute(connection);
      await sql`reset statement_timeout`.execute(connection);
    }
  });
}

/**
 * Holds a lock named by `key` until the transaction ends, for a check that must see every write committed
 * before it (an entitlement's count). PostgreSQL: a transaction-scoped advisory lock. SQLite: nothing, since
 * its one writer runs one transaction at a time (group commit runs the calls in it one after another).
 */
export async function lockUntilCommit(trx: Kysely<any>, key: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
