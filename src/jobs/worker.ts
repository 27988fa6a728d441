// The background worker of one node: the outbox relay, the job queue (pg-boss or the SQLite poller) and the
// periodic tasks the modules declare. app.ts starts it when the app is ready and stops it on close
// (WOS_WORKER=off: never).
import type { PipelineDeps } from '../core/call.ts';
import { createPgBossQueue } from './pgboss-queue.ts';
import { createSqliteQueue } from './sqlite-queue.ts';
import type { JobEnv, JobQueue, QueueBackend } from './types.ts';

export interface Worker {
  queue: JobQueue;
  /**
   * Runs a relay pass, the periodic tasks and a queue poll once, now (tests and operators need not wait for
   * the timer): deliveries the relay creates are found by the sweep in the same tick.
   */
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The queue of this node: any node enqueues (the pipeline, inside its transactions); only a node with its
 * worker on starts it and runs jobs.
 */
export function createQueueBackend(base: Omit<JobEnv, 'queue' | 'pipeline'>): QueueBackend {
  return base.dialect === 'postgres' ? createPgBossQueue(base) : createSqliteQueue(base);
}

/** Starts the queue of the pipeline (deps.jobs) with every module's jobs, and the periodic tasks. */
export async function startWorker(deps: PipelineDeps): Promise<Worker> {
  const backend = deps.jobs;
  const poll = 'poll' in backend ? (backend.poll as () => Promise<void>) : undefined;
  const env: JobEnv = {
    db: deps.database.db,
    dialect: deps.database.dialect,
    config: deps.config,
    clock: deps.clock,
    logger: deps.logger,
    queue: backend,
    pipeline: deps,
  };
  const tasks = deps.registry.modules.flatMap((m) => m.periodicTasks ?? []);
  await backend.start(
    deps.registry.modules.flatMap((m) => m.jobs ?? []),
    deps,
  );

  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = async () => {
    if (stopped) return;
    await deps.relay.pass().catch((err) => deps.logger.error({ err }, 'outbox relay pass failed'));
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
  // Between ticks, writes on this node nudge the relay as they commit; the first pass takes any backlog.
  deps.relay.start();
  deps.relay.nudge();

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
      await deps.relay.stop();
      await running.catch(() => {});
      await backend.stop();
    },
  };
}
