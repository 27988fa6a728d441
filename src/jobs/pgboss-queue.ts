// The jobs interface on pg-boss 10 for PostgreSQL installations: several nodes share the queues, and
// pg-boss (SKIP LOCKED fetches, expiry, retries) decides which node runs a job.
import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import PgBoss from 'pg-boss';
import type { Config } from '../config.ts';
import type { PipelineDeps } from '../core/call.ts';
import { withInstallationLock } from '../db/dialect.ts';
import type { DB } from '../db/tables.ts';
import type { EnqueueOptions, JobDefinition, JobEnv, QueueBackend } from './types.ts';
import { DEFAULT_JOB_TIMEOUT_SECONDS, runAttempt } from './types.ts';

/** pg-boss keeps its tables in a schema of its own, derived from the service's schema when one is set. */
export function jobsSchema(config: Config): string {
  return config.databaseSchema ? `${config.databaseSchema}_jobs` : 'wos_jobs';
}

/** A deduplication key as a stable UUID: pg-boss ignores a second insert of the same (queue, id). */
export function keyToUuid(name: string, key: string): string {
  const hex = createHash('sha256').update(`${name}\n${key}`).digest('hex');
  const variant = ((Number.parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const LOOPS = 4;

/** pg-boss's `db` option over a Kysely transaction: its insert then commits or rolls back with the caller. */
function throughTransaction(trx: Kysely<DB>) {
  return {
    executeSql: async (text: string, values: unknown[]) => {
      const result = await trx.executeQuery(CompiledQuery.raw(text, values));
      return { rows: result.rows };
    },
  };
}

export function createPgBossQueue(base: Omit<JobEnv, 'queue'>): QueueBackend {
  const { config, clock, logger } = base;
  const boss = new PgBoss({
    connectionString: config.databaseUrl!,
    schema: jobsSchema(config),
    application_name: 'wos-jobs',
    max: 4,
    schedule: false,
    supervise: true,
    archiveCompletedAfterSeconds: 24 * 60 * 60,
  });
  boss.on('error', (err) => logger.error({ err }, 'job queue error'));
  const controller = new AbortController();
  const workers = new Map<string, string[]>();
  let started = false;

  const queue: QueueBackend = {
    backend: 'pg-boss',

    async enqueue(name: string, payload: unknown, options: EnqueueOptions = {}): Promise<string | null> {
      // Run times are on the service clock; pg-boss counts in the database's time, so send the delay.
      const delayMs = options.runAt ? Math.max(0, options.runAt.getTime() - clock.now().getTime()) : 0;
      const id = await boss.send(name, (payload ?? {}) as object, {
        ...(options.key ? { id: keyToUuid(name, options.key) } : {}),
        ...(delayMs > 0 ? { startAfter: new Date(Date.now() + delayMs) } : {}),
        ...(options.db ? { db: throughTransaction(options.db) } : {}),
      });
      // A job inserted in a transaction is invisible until the commit: the workers' polling finds it then.
      if (id && delayMs === 0 && !options.db)
        for (const worker of workers.get(name) ?? []) boss.notifyWorker(worker);
      return id;
    },

    async start(definitions: JobDefinition[], pipeline?: PipelineDeps): Promise<void> {
      // Nodes starting together take turns: two create_queue calls at once deadlock on pg-boss's queue table
      // (each inserts its row, then its partition's foreign key waits for the other's insert). A node that
      // finds its queues made creates nothing.
      await withInstallationLock(base.db, 'job-queues', async () => {
        await boss.start();
        started = true;
        const existing = new Set((await boss.getQueues()).map((q) => q.name));
        for (const definition of definitions) {
          if (existing.has(definition.name)) continue;
          await boss.createQueue(definition.name, {
            name: definition.name,
            retryLimit: definition.retryLimit ?? 3,
            retryDelay: definition.retryDelaySeconds ?? 5,
            retryBackoff: true,
            // pg-boss expires (and retries) an attempt only after our own timeout has had time to end it.
            expireInSeconds: Math.ceil(definition.timeoutSeconds ?? DEFAULT_JOB_TIMEOUT_SECONDS) + 60,
          });
        }
      });
      const env: JobEnv = { ...base, queue, pipeline };
      for (const definition of definitions) {
        // Several fetch loops per queue: a slow receiver holds one loop, not the node's whole queue. A loop
        // that just finished a job fetches again at once instead of waiting for its polling interval.
        const ids: string[] = [];
        for (let i = 0; i < LOOPS; i++) {
          let self = '';
          self = await boss.work<Record<string, unknown>>(
            definition.name,
            {
              pollingIntervalSeconds: Math.max(0.5, config.workerPollMs / 1000),
              batchSize: 1,
              includeMetadata: true,
            },
            async ([job]) => {
              if (!job) return;
              try {
                await runAttempt(
                  definition,
                  { id: job.id, name: job.name, payload: job.data, attempt: job.retryCount + 1 },
                  env,
                  controller.signal,
                );
              } finally {
                if (!controller.signal.aborted) boss.notifyWorker(self);
              }
            },
          );
          ids.push(self);
        }
        workers.set(definition.name, ids);
      }
    },

    async stop(): Promise<void> {
      if (!started) return;
      controller.abort();
      // Jobs still running are failed back to pg-boss, which retries them on a live node.
      await boss.stop({ graceful: true, wait: true, timeout: 5000, close: true });
    },
  };
  return queue;
}
