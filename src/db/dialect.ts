// Which database a Kysely instance talks to, for the few places where SQL differs (partitions, trigram
// indexes, triggers, session settings). Everything else is written once for both.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Holds a lock named by `key` until the transaction ends, for a check that must see every write committed
 * before it (an entitlement's count). PostgreSQL: a transaction-scoped advisory lock. SQLite: nothing, since
 * its one writer runs one transaction at a time (group commit runs the calls in it one after another).
 */
export async function lockUntilCommit(trx: Kysely<any>, key: string): Promise<void> {
  if (isPostgres(trx)) await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
}
