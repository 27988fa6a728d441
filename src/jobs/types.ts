// The small jobs interface shared by every background feature (webhook deliveries, notification pushes;
// later schedules, exports, execution jobs). PostgreSQL runs it on pg-boss, SQLite on an in-process poller.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Clock } from '../core/clock.ts';
import type { Dialect } from '../db/database.ts';
import type { DB } from '../db/tables.ts';

export interface Job<T = unknown> {
  id: string;
  name: string;
  payload: T;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /** Aborted when the node stops: give up quickly, the job runs again elsewhere or after restart. */
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
}

export interface JobDefinition<T = any> {
  /** Queue name, dotted: webhooks.deliver. */
  name: string;
  /** Retries after a thrown error (default 3); a handler that records its own failure should not throw. */
  retryLimit?: number;
  /** First retry delay in seconds, doubled on each further retry (default 5). */
  retryDelaySeconds?: number;
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
}

export interface JobQueue {
  readonly backend: 'pg-boss' | 'sqlite';
  enqueue(name: string, payload: unknown, options?: EnqueueOptions): Promise<string | null>;
}

/** A queue implementation: started with the handlers it serves, stopped on shutdown. */
export interface QueueBackend extends JobQueue {
  start(definitions: JobDefinition[]): Promise<void>;
  stop(): Promise<void>;
}

/** Delay before retry n (1-based) of a failed job: base, 2x base, 4x base, ... capped at one hour. */
export function retryDelayMs(definition: JobDefinition, retry: number): number {
  const base = (definition.retryDelaySeconds ?? 5) * 1000;
  return Math.min(base * 2 ** Math.max(0, retry - 1), 3_600_000);
}
