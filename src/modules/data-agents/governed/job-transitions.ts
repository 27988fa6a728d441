// The state machine of execution jobs (docs/modules/data-agents.md has the diagram):
// draft -> queued (dispatch) -> running -> completed | failed | needs_review -> approved | rejected (review);
// canceled from queued or running; a running job whose claim lapsed goes back to queued while attempts
// remain. Every move is an UPDATE guarded by the status (and claim) it was judged on, so two writers never
// both win; the loser gets 409 conflict naming the status it found.
import type { Kysely } from 'kysely';
import type { OperationContext } from '../../../core/context.ts';
import { fail, notFound } from '../../../core/errors.ts';
import type { DB } from '../../../db/tables.ts';
import type { JobStatus } from './job-schemas.ts';
import { findJob, toJob, updateJobIf } from './job-store.ts';
import type { DataAgentExecutionJobsTable } from './job-tables.ts';

const MOVES: Record<JobStatus, readonly JobStatus[]> = {
  draft: ['queued'],
  queued: ['running', 'canceled'],
  running: ['completed', 'failed', 'needs_review', 'canceled', 'queued'],
  needs_review: ['approved', 'rejected'],
  completed: [],
  failed: [],
  approved: [],
  rejected: [],
  canceled: [],
};

export const FINISHED: ReadonlySet<JobStatus> = new Set(['completed', 'failed', 'needs_review', 'canceled']);

/** 409 conflict whose message names the job's current status and the moves it allows. */
export function illegalMove(current: string, to: string, hint?: string) {
  const allowed = MOVES[current as JobStatus] ?? [];
  return fail('conflict', {
    message:
      `The execution job is ${current}; it cannot move to ${to}. ` +
      (allowed.length ? `From ${current} it can move to: ${allowed.join(', ')}.` : `${current} is final.`) +
      (hint ? ` ${hint}` : ''),
  });
}

export function assertMove(row: DataAgentExecutionJobsTable, to: JobStatus, hint?: string): void {
  if (!MOVES[row.status as JobStatus]?.includes(to)) throw illegalMove(row.status, to, hint);
}

/** The timestamps a move sets. */
export function moveColumns(
  row: DataAgentExecutionJobsTable,
  to: JobStatus,
  now: string,
): Partial<DataAgentExecutionJobsTable> {
  const columns: Partial<DataAgentExecutionJobsTable> = { status: to, updated_at: now };
  if (to === 'queued') Object.assign(columns, { queued_at: now, started_at: null });
  if (to === 'running') columns.started_at = now;
  if (FINISHED.has(to)) {
    columns.finished_at = now;
    columns.duration_ms = row.started_at ? Math.max(0, Date.parse(now) - Date.parse(row.started_at)) : null;
    columns.lease_expires_at = null;
  }
  if (to === 'approved' || to === 'rejected') columns.reviewed_at = now;
  return columns;
}

/**
 * Moves a job (or, with to = its status, only sets columns) guarded by what the caller read. Returns the row
 * after the move; a concurrent change is 409 conflict naming the status found then.
 */
export async function applyMove(
  db: Kysely<DB>,
  row: DataAgentExecutionJobsTable,
  to: JobStatus,
  now: string,
  changes: Partial<DataAgentExecutionJobsTable> = {},
): Promise<DataAgentExecutionJobsTable> {
  if (to !== row.status) assertMove(row, to);
  const set = { ...(to === row.status ? { updated_at: now } : moveColumns(row, to, now)), ...changes };
  if (await updateJobIf(db, row, set)) return { ...row, ...set };
  const current = await findJob(db, row.workspace_id, row.id);
  if (!current) throw notFound('execution job');
  throw fail('conflict', {
    message: `The execution job changed meanwhile: it is ${current.status} now (attempt ${current.attempts}). Read it again.`,
  });
}

/** The audit event and, when the status changed, data_agent_execution_job.status_changed of a call's move. */
export function recordMove(
  ctx: OperationContext,
  before: DataAgentExecutionJobsTable,
  after: DataAgentExecutionJobsTable,
  changedFields: string[],
): void {
  const statusChanged = before.status !== after.status;
  ctx.audit({
    targetType: 'data_agent_execution_job',
    targetId: after.id,
    changedFields,
    ...(statusChanged
      ? { action: after.status === 'queued' && before.status === 'draft' ? 'dispatch' : after.status }
      : {}),
  });
  if (statusChanged) ctx.emit(statusEvent(after, before.status));
}

export const statusEvent = (row: DataAgentExecutionJobsTable, previous: string) => ({
  name: 'data_agent_execution_job.status_changed',
  targetType: 'data_agent_execution_job',
  targetId: row.id,
  data: { ...toJob(row), previous_status: previous },
});
