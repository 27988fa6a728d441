import { type Kysely, sql } from 'kysely';
import type { DB } from './tables.ts';

export type TransactionRunner = <T>(work: (trx: Kysely<DB>) => Promise<T>) => Promise<T>;

interface Job {
  work: (trx: Kysely<DB>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const MAX_BATCH = 64;

/**
 * Group commit for SQLite, whose one connection runs one transaction at a time anyway: the writes of the
 * calls that arrive in the same event-loop turn run in one transaction, each inside its own savepoint. A
 * call that fails rolls back to its savepoint and nothing of it remains; the others commit together, and
 * no call is answered before the commit that holds its writes. One commit then serves many calls.
 */
export function groupCommit(db: Kysely<DB>): TransactionRunner {
  let queue: Job[] = [];
  let scheduled = false;

  async function runBatch(batch: Job[]): Promise<void> {
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      await db.transaction().execute(async (trx) => {
        for (const job of batch) {
          await sql`savepoint wos_call`.execute(trx);
          try {
            const value = await job.work(trx);
            await sql`release savepoint wos_call`.execute(trx);
            outcomes.push({ ok: true, value });
          } catch (error) {
            await sql`rollback to savepoint wos_call`.execute(trx);
            await sql`release savepoint wos_call`.execute(trx);
            outcomes.push({ ok: false, value: error });
          }
        }
      });
    } catch (error) {
      for (const job of batch) job.reject(error);
      return;
    }
    for (const [i, job] of batch.entries()) {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    }
  }

  async function drain(): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(MAX_BATCH);
      await runBatch(batch);
    }
    scheduled = false;
  }

  return <T>(work: (trx: Kysely<DB>) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ work, resolve: resolve as (value: unknown) => void, reject });
      if (!scheduled) {
        scheduled = true;
        // Let the calls already parsed in this turn join the batch before it starts.
        setImmediate(() => void drain());
      }
    });
}
