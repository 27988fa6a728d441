import { type ChildProcess, fork } from 'node:child_process';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { queryTimedOut } from '../core/errors.ts';

/** Niceness of the heavy-read worker processes (0 is the service's own; 19 the lowest priority). */
const HEAVY_READ_NICENESS = 10;

const WORKER = fileURLToPath(new URL('./sqlite-read-worker.cjs', import.meta.url));

export interface ReadPoolOptions {
  /** The SQLite file the service writes (WAL mode, so readers run beside the writer). */
  file: string;
  /** Worker processes at most; each runs one query at a time. */
  size: number;
  /** A query running longer is stopped (its worker is killed) and fails with query_timeout. */
  timeoutMs: number;
}

export interface ReadPool {
  /** Runs one query; when `signal` aborts, a waiting query is dropped and a running one's worker is killed. */
  query(sql: string, parameters: readonly unknown[], signal?: AbortSignal): Promise<unknown[]>;
  close(): Promise<void>;
}

interface Job {
  sql: string;
  parameters: readonly unknown[];
  resolve: (rows: unknown[]) => void;
  reject: (error: unknown) => void;
}

interface Reader {
  child: ChildProcess;
  ready: boolean;
  job?: Job;
  jobId?: number;
  timer?: NodeJS.Timeout;
}

type WorkerMessage =
  | { ready: true }
  | { id: number; rows: unknown[]; error?: undefined }
  | { id: number; error: { message: string; code?: string } };

/**
 * Heavy reads on SQLite run in worker processes, each with its own read-only connection, so a long query
 * never blocks the event loop that serves every workspace. Workers start on first use; queries wait for a
 * free worker in arrival order. A query over the time limit kills its worker (the only way to stop a
 * better-sqlite3 statement) and a fresh one takes its place.
 */
export function createReadPool(options: ReadPoolOptions): ReadPool {
  const readers = new Set<Reader>();
  const waiting: Job[] = [];
  let closed = false;
  let nextId = 0;

  function finish(reader: Reader): Job | undefined {
    const job = reader.job;
    clearTimeout(reader.timer);
    reader.job = undefined;
    reader.jobId = undefined;
    // An idle worker must not keep the process alive.
    if (readers.has(reader)) reader.child.channel?.unref();
    return job;
  }

  function retire(reader: Reader, error: unknown): void {
    if (!readers.delete(reader)) return;
    const startFailed = !reader.ready;
    finish(reader)?.reject(error);
    reader.child.kill('SIGKILL');
    // A worker that dies before it is ready would die again: fail the waiting queries instead of looping.
    if (startFailed && ![...readers].some((r) => r.ready)) {
      for (const job of waiting.splice(0)) job.reject(error);
    }
    pump();
  }

  function dispatch(reader: Reader, job: Job): void {
    const id = nextId++;
    reader.job = job;
    reader.jobId = id;
    reader.child.channel?.ref();
    reader.timer = setTimeout(() => retire(reader, queryTimedOut(options.timeoutMs)), options.timeoutMs);
    reader.child.send({ id, sql: job.sql, parameters: job.parameters }, (error) => {
      if (error) retire(reader, error);
    });
  }

  function spawn(): void {
    const child = fork(WORKER, [options.file], {
      execArgv: [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    child.unref();
    // A heavy read yields the CPU to the service's own process (every workspace's writes and pages): on a
    // small machine two scanning workers would otherwise take the cores the event loop needs.
    if (child.pid) {
      try {
        os.setPriority(child.pid, HEAVY_READ_NICENESS);
      } catch {
        // Not permitted on this system: the worker runs at the service's priority.
      }
    }
    const reader: Reader = { child, ready: false };
    readers.add(reader);
    child.on('message', (message: WorkerMessage) => {
      if ('ready' in message) {
        reader.ready = true;
        child.channel?.unref();
        pump();
        return;
      }
      if (message.id !== reader.jobId) return;
      const job = finish(reader);
      if (message.error)
        job?.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else job?.resolve(message.rows);
      pump();
    });
    child.on('error', (error) => retire(reader, error));
    child.on('exit', (code, signal) =>
      retire(reader, new Error(`heavy-read worker exited (${signal ?? code})`)),
    );
  }

  function pump(): void {
    if (closed) return;
    for (const reader of readers) {
      if (waiting.length === 0) break;
      if (reader.ready && !reader.job) dispatch(reader, waiting.shift()!);
    }
    let starting = [...readers].filter((r) => !r.ready).length;
    while (waiting.length > starting && readers.size < options.size) {
      spawn();
      starting++;
    }
  }

  return {
    query: (sql, parameters, signal) =>
      new Promise<unknown[]>((resolve, reject) => {
        if (closed) return reject(new Error('The heavy-read pool is closed'));
        if (signal?.aborted) return reject(signal.reason);
        // The listener goes when the query settles: left on a long-lived signal (a run's, over thousands of
        // chunked reads) it would keep every settled query's rows reachable until the run ends.
        const settled = () => signal?.removeEventListener('abort', onAbort);
        const job: Job = {
          sql,
          parameters,
          resolve: (rows) => {
            settled();
            resolve(rows);
          },
          reject: (error) => {
            settled();
            reject(error);
          },
        };
        const onAbort = () => {
          const index = waiting.indexOf(job);
          if (index >= 0) {
            waiting.splice(index, 1);
            job.reject(signal!.reason);
            return;
          }
          const reader = [...readers].find((r) => r.job === job);
          if (reader) retire(reader, signal!.reason);
        };
        waiting.push(job);
        signal?.addEventListener('abort', onAbort, { once: true });
        pump();
      }),
    close: async () => {
      closed = true;
      for (const job of waiting.splice(0)) job.reject(new Error('The heavy-read pool is closed'));
      await Promise.all(
        [...readers].map(
          (reader) =>
            new Promise<void>((resolve) => {
              if (reader.child.exitCode !== null || reader.child.signalCode !== null) return resolve();
              reader.child.once('exit', () => resolve());
              // Workers are unref'd so an idle one never keeps the process alive; unref'd, its exit could
              // come after the event loop emptied, and this close would never settle (exit code 13).
              reader.child.ref();
              reader.child.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
