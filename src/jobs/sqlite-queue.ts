// The jobs interface over a table of the service's own database, for SQLite installations (one node).

import type { PipelineDeps } from '../core/call.ts';
import { newId } from '../core/ids.ts';
import type { EnqueueOptions, JobDefinition, JobEnv, QueueBackend } from './types.ts';
import { retryDelayMs, runAttempt } from './types.ts';

const CONCURRENCY = 4;
const KEEP_FINISHED_MS = 24 * 60 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 60 * 1000;

export function createSqliteQueue(base: Omit<JobEnv, 'queue'>): QueueBackend & { poll(): Promise<void> } {
  const { db, clock, logger } = base;
  const definitions = new Map<string, JobDefinition>();
  const inflight = new Set<Promise<void>>();
  const controller = new AbortController();
  let env: JobEnv | undefined;
  let stopping = false;
  let lastPurge = 0;

  const queue = {
    backend: 'sqlite' as const,

    async enqueue(name: string, payload: unknown, options: EnqueueOptions = {}): Promise<string | null> {
      const now = clock.now().toISOString();
      const id = newId('job');
      // Through the caller's transaction when given: the same file, so the job commits with its writes.
      const result = await (options.db ?? db)
        .insertInto('job_queue')
        .values({
          id,
          name,
          payload: JSON.stringify(payload ?? null),
          state: 'queued',
          run_at: (options.runAt ?? clock.now()).toISOString(),
          attempts: 0,
          dedup_key: options.key ?? null,
          last_error: null,
          created_at: now,
          updated_at: now,
        })
        .onConflict((oc) => oc.column('dedup_key').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) === 1 ? id : null;
    },

    async start(list: JobDefinition[], pipeline?: PipelineDeps): Promise<void> {
      for (const definition of list) definitions.set(definition.name, definition);
      env = { ...base, queue, pipeline };
      // One node owns a SQLite file: a job left active by a crash or kill is simply queued again.
      await db.updateTable('job_queue').set({ state: 'queued' }).where('state', '=', 'active').execute();
    },

    /** Claims due jobs (up to the free concurrency) and runs them without waiting for them to finish. */
    async poll(): Promise<void> {
      if (stopping || !env || definitions.size === 0) return;
      const now = clock.now();
      const free = CONCURRENCY - inflight.size;
      if (free > 0) {
        const due = await db
          .selectFrom('job_queue')
          .selectAll()
          .where('state', '=', 'queued')
          .where('run_at', '<=', now.toISOString())
          .where('name', 'in', [...definitions.keys()])
          .orderBy('run_at')
          .limit(free)
          .execute();
        for (const row of due) {
          const claimed = await db
            .updateTable('job_queue')
            .set({ state: 'active', attempts: row.attempts + 1, updated_at: now.toISOString() })
            .where('id', '=', row.id)
            .where('state', '=', 'queued')
            .executeTakeFirst();
          if (Number(claimed.numUpdatedRows) !== 1) continue;
          const running = run(row.id, row.name, row.payload, row.attempts + 1).finally(() =>
            inflight.delete(running),
          );
          inflight.add(running);
        }
      }
      if (now.getTime() - lastPurge > PURGE_EVERY_MS) {
        lastPurge = now.getTime();
        const before = new Date(now.getTime() - KEEP_FINISHED_MS).toISOString();
        await db
          .deleteFrom('job_queue')
          .where('state', '=', 'completed')
          .where('updated_at', '<', before)
          .execute();
      }
    },

    async stop(): Promise<void> {
      stopping = true;
      controller.abort();
      await Promise.allSettled([...inflight]);
    },
  };

  async function run(id: string, name: string, payload: string, attempt: number): Promise<void> {
    const definition = definitions.get(name)!;
    try {
      await runAttempt(
        definition,
        { id, name, payload: JSON.parse(payload), attempt },
        env!,
        controller.signal,
      );
      await db
        .updateTable('job_queue')
        .set({ state: 'completed', updated_at: clock.now().toISOString() })
        .where('id', '=', id)
        .execute();
    } catch (thrown) {
      const now = clock.now();
      const message = thrown instanceof Error ? thrown.message : String(thrown);
      if (stopping) {
        // Interrupted by shutdown: not a failed attempt; it runs again after restart.
        await db
          .updateTable('job_queue')
          .set({ state: 'queued', attempts: attempt - 1 })
          .where('id', '=', id)
          .execute();
        return;
      }
      const retry = attempt <= (definition.retryLimit ?? 3);
      if (!retry) logger.error({ err: thrown, job: name, job_id: id }, 'job failed after its retries');
      await db
        .updateTable('job_queue')
        .set({
          state: retry ? 'queued' : 'failed',
          run_at: retry
            ? new Date(now.getTime() + retryDelayMs(definition, attempt)).toISOString()
            : now.toISOString(),
          last_error: message.slice(0, 500),
          updated_at: now.toISOString(),
        })
        .where('id', '=', id)
        .execute();
    }
  }

  return queue;
}
