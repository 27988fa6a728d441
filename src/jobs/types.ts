// The small jobs interface shared by every background feature (webhook deliveries, notification pushes;
// later schedules, exports, execution jobs). PostgreSQL runs it on pg-boss, SQLite on an in-process poller.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { PipelineDeps } from '../core/call.ts';
import type { Clock } from '../core/clock.ts';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/tables.ts';

export interface Job<T = unknown> {
  id: string;
  name: string;
  payload: T;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /**
   * Aborted when the node stops (give up quickly: the job runs again elsewhere or after restart) or when the
   * job's timeout passes (the reason is a JobTimeoutError).
   */
  signal: AbortSignal;
}

/** What a job handler or periodic task may use: the root database (never a caller's transaction). */
export interface JobEnv {
  db: Kysely<DB>;
  dialect: Dialect;
  config: Config;
  clock: Clock;
  logger: Logger;
  queue: JobQueue;
  /** The request pipeline, for jobs that call registry operations on a caller's behalf (run-on-behalf.ts). */
  pipeline?: PipelineDeps;
}

export interface JobDefinition<T = any> {
  /** Queue name, dotted: webhooks.deliver. */
  name: string;
  /** Retries after a thrown error (default 3); a handler that records its own failure should not throw. */
  retryLimit?: number;
  /** First retry delay in seconds, doubled on each further retry (default 5). */
  retryDelaySeconds?: number;
  /**
   * Longest run of one attempt (default 300). Then the job's signal aborts with a JobTimeoutError; a handler
   * still running 5 s later is abandoned and the attempt fails as a timeout.
   */
  timeoutSeconds?: number;
  run(job: Job<T>, env: JobEnv): Promise<void>;
}

/**
 * Work every node does on each worker tick (every WOS_WORKER_POLL_MS): typically finding rows that are due
 * by the service clock and enqueueing one keyed job per row. It must be idempotent: all nodes run it.
 */
export interface PeriodicTask {
  name: string;
  run(env: JobEnv): Promise<void>;
}

export interface EnqueueOptions {
  /** Earliest run time on the service clock (default: now). */
  runAt?: Date;
  /**
   * Deduplication key: while a job with this key is queued, running, retrying or kept after finishing
   * (about a day), enqueueing the same key again does nothing and returns null.
   */
  key?: string;
  /**
   * The caller's transaction (a Kysely transaction): the job is inserted through it, so it exists exactly
   * when the caller's writes commit. Without it the job is inserted on its own.
   */
  db?: Kysely<DB>;
}

export interface JobQueue {
  readonly backend: 'pg-boss' | 'sqlite';
  enqueue(name: string, payload: unknown, options?: EnqueueOptions): Promise<string | null>;
}

/** A queue implementation: started with the handlers it serves, stopped on shutdown. */
export interface QueueBackend extends JobQueue {
  /** Runs the given jobs on this node; their env carries the pipeline when given. */
  start(definitions: JobDefinition[], pipeline?: PipelineDeps): Promise<void>;
  stop(): Promise<void>;
}

/** Delay before retry n (1-based) of a failed job: base, 2x base, 4x base, ... capped at one hour. */
export function retryDelayMs(definition: JobDefinition, retry: number): number {
  const base = (definition.retryDelaySeconds ?? 5) * 1000;
  return Math.min(base * 2 ** Math.max(0, retry - 1), 3_600_000);
}

export const DEFAULT_JOB_TIMEOUT_SECONDS = 300;
/** How long a handler may take to give up after its timeout before the queue abandons it. */
const ABANDON_AFTER_MS = 5000;

/** The abort reason of a job that exceeded its timeout. */
export class JobTimeoutError extends Error {
  constructor(readonly timeoutSeconds: number) {
    super(`The job exceeded its timeout of ${timeoutSeconds} s.`);
  }
}

/**
 * Runs one attempt of a job for a queue backend: the job's signal aborts when the node stops or the
 * timeout passes; a handler that ignores it is abandoned shortly after and the attempt fails.
 */
export async function runAttempt(
  definition: JobDefinition,
  job: Omit<Job, 'signal'>,
  env: JobEnv,
  stop: AbortSignal,
): Promise<void> {
  const seconds = definition.timeoutSeconds ?? DEFAULT_JOB_TIMEOUT_SECONDS;
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new JobTimeoutError(seconds)), seconds * 1000);
  let abandon: NodeJS.Timeout | undefined;
  const abandoned = new Promise<never>((_resolve, reject) => {
    timeout.signal.addEventListener('abort', () => {
      abandon = setTimeout(() => reject(timeout.signal.reason), ABANDON_AFTER_MS);
    });
  });
  const running = definition.run({ ...job, signal: AbortSignal.any([stop, timeout.signal]) }, env);
  running.catch(() => {}); // an abandoned handler may still fail later: that is not an unhandled rejection
  try {
    await Promise.race([running, abandoned]);
  } finally {
    clearTimeout(timer);
    clearTimeout(abandon);
  }
}
