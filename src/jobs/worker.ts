// The background worker of one node: the job queue (pg-boss or the SQLite poller) plus the periodic tasks
// the modules declare. app.ts starts it when the app is ready and stops it on close (WOS_WORKER=off: never).
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { Database } from '../db/database.ts';
import type { Registry } from '../registry.ts';
import { createPgBossQueue } from './pgboss-queue.ts';
import { createSqliteQueue } from './sqlite-queue.ts';
import type { JobEnv, JobQueue } from './types.ts';

export interface Worker {
  queue: JobQueue;
  /** Runs the periodic tasks and a queue poll once, now (tests and operators need not wait for the timer). */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

export interface WorkerDeps {
  database: Database;
  config: Config;
  clock: Clock;
  logger: Logger;
  registry: Registry;
}

export async function startWorker(deps: WorkerDeps): Promise<Worker> {
  const base = {
    db: deps.database.db,
    dialect: deps.database.dialect,
    config: deps.config,
    clock: deps.clock,
    logger: deps.logger,
  };
  const backend = deps.database.dialect === 'postgres' ? createPgBossQueue(base) : createSqliteQueue(base);
  const poll = 'poll' in backend ? (backend.poll as () => Promise<void>) : undefined;
  const env: JobEnv = { ...base, queue: backend };
  const tasks = deps.registry.modules.flatMap((m) => m.periodicTasks ?? []);
  await backend.start(deps.registry.modules.flatMap((m) => m.jobs ?? []));

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = async () => {
    for (const task of tasks) {
      if (stopped) return;
      try {
        await task.run(env);
      } catch (err) {
        deps.logger.error({ err, task: task.name }, 'periodic task failed');
      }
    }
    if (!stopped && poll) await poll().catch((err) => deps.logger.error({ err }, 'job poll failed'));
  };
  const schedule = () => {
    timer = setTimeout(() => {
      running = tick().finally(() => {
        if (!stopped) schedule();
      });
    }, deps.config.workerPollMs);
    timer.unref();
  };
  schedule();

  return {
    queue: backend,
    tick: () => {
      running = running.then(tick);
      return running;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearTimeout(timer);
      await running.catch(() => {});
      await backend.stop();
    },
  };
}
