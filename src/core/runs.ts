// Long-running work as a resource. An operation declared with `starts` writes a run (queued) and enqueues
// its job in the call's transaction; the job (run-job.ts) moves it to running and then to completed, failed
// or canceled. Every query here is filtered by workspace_id; the moves are guarded by the current status,
// so a cancel and a finishing job never both win.
import type { Kysely } from 'kysely';
import type { DB, RunsTable } from '../db/tables.ts';
import type { JobQueue } from '../jobs/types.ts';
import type { AuditEntry } from './context.ts';
import type { OperationDefinition } from './define-operation.ts';
import { fail, notFound } from './errors.ts';
import { newId } from './ids.ts';
import { fetchPage, type Page, type PageRequest } from './pagination.ts';
import { type Run, type RunStatus, toRunResource } from './run-resource.ts';

export interface NewRun {
  workspaceId: string;
  runType: string;
  module: string;
  operation: string;
  job: string;
  trigger: string;
  inputSummary: Record<string, unknown>;
  /** Passed to the job besides workspace_id and run_id. */
  payload: Record<string, unknown>;
  requestId: string;
  credentialId: string | null;
  now: string;
  /** The job's deduplication key (default run:<run id>): a scheduled run is keyed by its occurrence. */
  jobKey?: string;
}

/**
 * Writes a queued run and enqueues its job through the same transaction (`db`): both exist or neither. The
 * job's key is the run, so it is enqueued once.
 */
export async function startRun(db: Kysely<DB>, queue: JobQueue, run: NewRun): Promise<Run> {
  const row: RunsTable = {
    workspace_id: run.workspaceId,
    id: newId('run'),
    run_type: run.runType,
    module: run.module,
    operation: run.operation,
    job_name: run.job,
    status: 'queued',
    trigger: run.trigger,
    input_summary: JSON.stringify(run.inputSummary),
    attempts: 0,
    queued_at: run.now,
    started_at: null,
    finished_at: null,
    duration_ms: null,
    error_code: null,
    error_message: null,
    result_ref: null,
    request_id: run.requestId,
    credential_id: run.credentialId,
    updated_at: run.now,
  };
  await db.insertInto('runs').values(row).execute();
  const payload = { ...run.payload, workspace_id: row.workspace_id, run_id: row.id };
  const jobId = await queue.enqueue(run.job, payload, { key: run.jobKey ?? `run:${row.id}`, db });
  // pg-boss inserts nothing for a queue it does not know: no run may exist without its job.
  if (!jobId)
    throw new Error(`Job queue ${run.job} is unknown: a node with its worker on creates it at start`);
  return toRunResource(row);
}

export interface StartRunOptions {
  /** What the run was asked to do, as the run resource shows it (default: the input without its key). */
  inputSummary?: Record<string, unknown>;
  /** What the job needs besides workspace_id and run_id (default: none). */
  payload?: Record<string, unknown>;
  /** Default: manual for REST and MCP calls, worker for calls on a caller's behalf. */
  trigger?: string;
}

/** ctx.startRun of the pipeline: the run of a `starts` operation, its job, and its audit event. */
export async function startOperationRun(
  db: Kysely<DB>,
  queue: JobQueue,
  op: OperationDefinition,
  call: {
    workspaceId: string;
    requestId: string;
    credentialId: string;
    surface: string;
    now: string;
    input: Record<string, unknown>;
    audit: (entry: AuditEntry) => void;
  },
  options: StartRunOptions,
): Promise<Run> {
  if (!op.starts) throw new Error(`${op.name} does not declare the work it starts`);
  const { idempotency_key: _key, dry_run: _dryRun, ...input } = call.input;
  const run = await startRun(db, queue, {
    workspaceId: call.workspaceId,
    runType: op.starts.runType,
    module: op.module,
    operation: op.name,
    job: op.starts.job,
    trigger: options.trigger ?? (call.surface === 'worker' ? 'worker' : 'manual'),
    inputSummary: options.inputSummary ?? input,
    payload: options.payload ?? {},
    requestId: call.requestId,
    credentialId: call.credentialId,
    now: call.now,
  });
  call.audit({ targetType: 'run', targetId: run.id, action: 'start', changedFields: [] });
  return run;
}

export async function findRun(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  runType?: string,
): Promise<RunsTable | undefined> {
  let query = db.selectFrom('runs').selectAll().where('workspace_id', '=', workspaceId).where('id', '=', id);
  if (runType) query = query.where('run_type', '=', runType);
  return query.executeTakeFirst();
}

export async function requireRun(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  runType?: string,
): Promise<RunsTable> {
  const row = await findRun(db, workspaceId, id, runType);
  if (!row) throw notFound('run');
  return row;
}

export async function listRuns(
  db: Kysely<DB>,
  workspaceId: string,
  runType: string,
  filters: { status?: RunStatus },
  page: PageRequest,
): Promise<Page<Run>> {
  let query = db
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('run_type', '=', runType);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toRunResource) };
}

/**
 * Moves a run to running for this attempt: from queued, or from running when an earlier attempt died with
 * its node (the queue runs the job again with a higher attempt). False when it is canceled or finished.
 */
export async function claimRun(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  attempt: number,
  now: string,
): Promise<RunsTable | undefined> {
  const claimed = await db
    .updateTable('runs')
    .set({ status: 'running', attempts: attempt, started_at: now, updated_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'queued'),
        eb.and([eb('status', '=', 'running'), eb('attempts', '<', attempt)]),
      ]),
    )
    .executeTakeFirst();
  return Number(claimed.numUpdatedRows) === 1 ? findRun(db, workspaceId, id) : undefined;
}

function durationMs(startedAt: string | null, finishedAt: string): number | null {
  return startedAt === null ? null : Math.max(0, Date.parse(finishedAt) - Date.parse(startedAt));
}

/** Ends a running run (completed or failed). False when it no longer runs (it was canceled meanwhile). */
export async function finishRun(
  db: Kysely<DB>,
  run: RunsTable,
  outcome: {
    status: 'completed' | 'failed';
    now: string;
    resultRef?: string | null;
    error?: { code: string; message: string };
  },
): Promise<boolean> {
  const updated = await db
    .updateTable('runs')
    .set({
      status: outcome.status,
      finished_at: outcome.now,
      duration_ms: durationMs(run.started_at, outcome.now),
      result_ref: outcome.resultRef ?? null,
      error_code: outcome.error?.code ?? null,
      error_message: outcome.error?.message.slice(0, 1000) ?? null,
      updated_at: outcome.now,
    })
    .where('workspace_id', '=', run.workspace_id)
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('attempts', '=', run.attempts)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** A running attempt gives the run back to the queue (a retry follows, or the node stopped). */
export async function requeueRun(
  db: Kysely<DB>,
  run: RunsTable,
  now: string,
  error?: { code: string; message: string },
): Promise<void> {
  await db
    .updateTable('runs')
    .set({
      status: 'queued',
      updated_at: now,
      ...(error ? { error_code: error.code, error_message: error.message.slice(0, 1000) } : {}),
    })
    .where('workspace_id', '=', run.workspace_id)
    .where('id', '=', run.id)
    .where('status', '=', 'running')
    .where('attempts', '=', run.attempts)
    .execute();
}

/**
 * Cancels a queued or running run: it is canceled at once; a running attempt notices within a poll
 * interval and stops. A finished run cannot be canceled (409 conflict).
 */
export async function cancelRun(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  runType: string,
  now: string,
) {
  for (;;) {
    const row = await requireRun(db, workspaceId, id, runType);
    if (row.status !== 'queued' && row.status !== 'running') {
      throw fail('conflict', {
        message: `The run is already ${row.status}; only a queued or running run can be canceled.`,
      });
    }
    const updated = await db
      .updateTable('runs')
      .set({
        status: 'canceled',
        finished_at: now,
        duration_ms: durationMs(row.started_at, now),
        updated_at: now,
      })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('status', '=', row.status)
      .where('attempts', '=', row.attempts)
      .executeTakeFirst();
    // Lost a race with the job (it started or finished): judge the new state.
    if (Number(updated.numUpdatedRows) === 1)
      return toRunResource({
        ...row,
        status: 'canceled',
        finished_at: now,
        duration_ms: durationMs(row.started_at, now),
        updated_at: now,
      });
  }
}
