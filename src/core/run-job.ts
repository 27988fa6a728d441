// The job that runs a run: declared beside its work with a timeout and a retry policy, it claims the run
// (queued -> running), does the work, and records how it ended (completed, failed with a code and a
// message, never a stack). The work stops when the run times out, is canceled, or the node stops:
// - PostgreSQL: the work runs in a transaction of its own with statement_timeout set to the job's timeout,
//   so a statement still running then is ended by the server; completing commits with that transaction,
//   so the writes of a canceled or failed run roll back.
// - SQLite: a statement on the main connection cannot be interrupted (better-sqlite3 runs it to its end on
//   the main thread), so long reads go to ctx.reads (heavy-read worker processes: the worker of a statement
//   still running at the abort is killed) and the work checks its signal between steps.
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Dialect } from '../db/database.ts';
import type { DB, RunsTable } from '../db/tables.ts';
import { type Job, type JobDefinition, type JobEnv, JobTimeoutError } from '../jobs/types.ts';
import { errorCatalogue, ServiceError } from './errors.ts';
import { runOnBehalf } from './run-on-behalf.ts';
import { type Run, toRunResource } from './run-resource.ts';
import { claimRun, findRun, finishRun, requeueRun } from './runs.ts';

export interface RunWorkContext {
  /** The workspace the run belongs to: every query of the work filters by it. */
  workspaceId: string;
  run: Run;
  /** What the starting operation passed to the job (besides workspace_id and run_id). */
  payload: Record<string, unknown>;
  /** 1 on the first attempt. */
  attempt: number;
  /** PostgreSQL: the attempt's transaction (statement_timeout set); SQLite: the database. */
  db: Kysely<DB>;
  /**
   * For long reads, stopped at the timeout or a cancel: PostgreSQL: the attempt's transaction; SQLite: the
   * heavy-read worker processes (read-only; the statement's worker is killed when the signal aborts).
   */
  reads: Kysely<DB>;
  dialect: Dialect;
  /** The service's configuration (where asset storage lives, the public URL). */
  config: Config;
  /** Aborted on timeout, cancel or node stop: check it between steps (signal.throwIfAborted()). */
  signal: AbortSignal;
  logger: Logger;
  /**
   * Calls a registry operation on behalf of the run's credential, through the pipeline (surface worker):
   * returns its body, or throws its ServiceError. Give creates an idempotency key stable across attempts;
   * give requestId to know the call's request ID (an assistant records it with the step) before it runs.
   * Once the signal aborted, calls are refused, except with `recordsEnd`: the work recording how it ended in
   * its own records (an assistant's Agent Grid run failed at the run's time limit).
   */
  call(
    tool: string,
    input: Record<string, unknown>,
    options?: { idempotencyKey?: string; requestId?: string; recordsEnd?: boolean },
  ): Promise<Record<string, unknown>>;
  /**
   * Writes the work's own records as the service (actor system), in a transaction of its own committed
   * whatever becomes of the attempt, at the service's time: how the work ended, when calls on the
   * credential's behalf are refused (the credential was revoked meanwhile).
   */
  recordEnd(write: (trx: Kysely<DB>, now: string) => Promise<void>): Promise<void>;
}

export interface RunJobSpec {
  /** Queue name, dotted (bi.query_run); the `starts.job` of the operation. */
  name: string;
  /** Longest attempt; then the run fails with code timeout (not retried: it would time out again). */
  timeoutSeconds: number;
  /** Retries after a retryable failure (internal_error, rate_limited, ...); default 3. */
  retryLimit?: number;
  retryDelaySeconds?: number;
  work(context: RunWorkContext): Promise<{ resultRef?: string | null }>;
}

interface RunJobPayload extends Record<string, unknown> {
  workspace_id: string;
  run_id: string;
}

/** The run's signal was aborted by a cancel. */
class RunCanceled extends Error {}

/** Resolves as the work does, or rejects as soon as the signal aborts (the work is left to fail on its own). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The error message of a run stopped at its time limit (code timeout). */
export const runTimeoutMessage = (seconds: number) =>
  `The run exceeded its time limit of ${seconds} s and was stopped.`;

const QUERY_CANCELED = '57014'; // PostgreSQL: statement_timeout (or a cancel request) ended the statement

function isTimeout(thrown: unknown, signal: AbortSignal): boolean {
  if (thrown instanceof JobTimeoutError || signal.reason instanceof JobTimeoutError) return true;
  return (
    (thrown as { code?: string } | null)?.code === QUERY_CANCELED && !(signal.reason instanceof RunCanceled)
  );
}

export function defineRunJob(spec: RunJobSpec): JobDefinition<RunJobPayload> {
  return {
    name: spec.name,
    retryLimit: spec.retryLimit ?? 3,
    retryDelaySeconds: spec.retryDelaySeconds,
    timeoutSeconds: spec.timeoutSeconds,
    run: (job, env) => runAttemptOfRun(spec, job, env),
  };
}

async function runAttemptOfRun(spec: RunJobSpec, job: Job<RunJobPayload>, env: JobEnv): Promise<void> {
  const { workspace_id: workspaceId, run_id: runId, ...payload } = job.payload;
  const pipeline = env.pipeline;
  if (!pipeline) throw new Error(`${spec.name}: run jobs need the pipeline in their env`);
  const now = () => env.clock.now().toISOString();
  const run = await claimRun(env.db, workspaceId, runId, job.attempt, now());
  if (!run) return; // canceled or finished: nothing to do

  // A cancel is seen by polling the run (it may come through any node): at most a second later.
  const cancel = new AbortController();
  const signal = AbortSignal.any([job.signal, cancel.signal]);
  const watch = setInterval(
    () => {
      findRun(env.db, workspaceId, runId)
        .then((row) => {
          if (row?.status === 'canceled') cancel.abort(new RunCanceled('canceled'));
        })
        .catch(() => {});
    },
    Math.min(1000, Math.max(100, env.config.workerPollMs)),
  );

  const context = (db: Kysely<DB>): RunWorkContext => ({
    workspaceId,
    run: toRunResource(run),
    payload,
    attempt: job.attempt,
    db,
    reads: env.dialect === 'postgres' ? db : pipeline.database.heavyUntil(signal),
    dialect: env.dialect,
    config: env.config,
    signal,
    logger: env.logger,
    call: async (tool, input, options = {}) => {
      if (!options.recordsEnd) signal.throwIfAborted();
      const outcome = await runOnBehalf(pipeline, {
        workspaceId,
        credentialId: run.credential_id ?? '',
        tool,
        input,
        runId,
        idempotencyKey: options.idempotencyKey,
        requestId: options.requestId,
        actorName: `run ${runId}`,
      });
      if (!outcome.ok) throw outcome.error;
      return outcome.body;
    },
    recordEnd: (write) => pipeline.database.transaction((trx) => write(trx, now())),
  });

  try {
    if (env.dialect === 'postgres') {
      await env.db.transaction().execute(async (trx) => {
        const limitMs = String(Math.ceil(spec.timeoutSeconds * 1000));
        await sql`select set_config('statement_timeout', ${limitMs}, true)`.execute(trx);
        const result = await untilAborted(spec.work(context(trx)), signal);
        // Canceled meanwhile: the work's writes roll back with this transaction.
        if (!(await finishRun(trx, run, { status: 'completed', now: now(), resultRef: result.resultRef }))) {
          throw new RunCanceled('canceled');
        }
      });
    } else {
      const result = await untilAborted(spec.work(context(env.db)), signal);
      await finishRun(env.db, run, { status: 'completed', now: now(), resultRef: result.resultRef });
    }
  } catch (thrown) {
    await settle(spec, job, env, run, thrown, signal);
  } finally {
    clearInterval(watch);
  }
}

/** Records how a failed attempt ends the run; rethrows when the queue must run the job again. */
async function settle(
  spec: RunJobSpec,
  job: Job<RunJobPayload>,
  env: JobEnv,
  run: RunsTable,
  thrown: unknown,
  signal: AbortSignal,
): Promise<void> {
  const now = env.clock.now().toISOString();
  if (isTimeout(thrown, signal)) {
    const message = runTimeoutMessage(spec.timeoutSeconds);
    await finishRun(env.db, run, { status: 'failed', now, error: { code: 'timeout', message } });
    return;
  }
  if (thrown instanceof RunCanceled || signal.reason instanceof RunCanceled) return; // already canceled
  if (job.signal.aborted) {
    // The node stops: the run waits in the queue for the next attempt.
    await requeueRun(env.db, run, now);
    throw thrown;
  }
  const error =
    thrown instanceof ServiceError
      ? { code: thrown.code, message: thrown.message, retryable: errorCatalogue[thrown.code].retryable }
      : { code: 'internal_error', message: errorCatalogue.internal_error.message, retryable: true };
  if (!(thrown instanceof ServiceError))
    env.logger.error({ err: thrown, run_id: run.id, job: spec.name }, 'run failed');
  if (error.retryable && job.attempt <= (spec.retryLimit ?? 3)) {
    await requeueRun(env.db, run, now, error);
    throw thrown;
  }
  await finishRun(env.db, run, { status: 'failed', now, error });
}
