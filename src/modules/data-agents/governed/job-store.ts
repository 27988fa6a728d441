import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { ExecutionJobSchema, JobLogLineSchema, JobStatus } from './job-schemas.ts';
import type { DataAgentExecutionJobLogsTable, DataAgentExecutionJobsTable } from './job-tables.ts';

export type ExecutionJob = Static<typeof ExecutionJobSchema>;
export type JobLogLine = Static<typeof JobLogLineSchema>;

/** A job keeps at most this many log lines; each line at most MAX_LOG_MESSAGE characters. */
export const MAX_LOG_LINES = 1000;
export const MAX_LOG_MESSAGE = 2000;

export function toJob(row: DataAgentExecutionJobsTable): ExecutionJob {
  return {
    id: row.id,
    title: row.title,
    job_type: row.job_type as ExecutionJob['job_type'],
    status: row.status as JobStatus,
    trigger: row.trigger as ExecutionJob['trigger'],
    plane_id: row.plane_id,
    input: JSON.parse(row.input),
    output: row.output === null ? null : JSON.parse(row.output),
    require_review: row.require_review === 1,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    progress: row.progress,
    worker_id: row.worker_id,
    worker_credential_id: row.worker_credential_id,
    lease_expires_at: row.lease_expires_at,
    run_id: row.run_id,
    log_count: row.log_count,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    review_note: row.review_note,
    reviewed_at: row.reviewed_at,
    queued_at: row.queued_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: row.duration_ms,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findJob = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_execution_jobs', workspaceId, id);

export const insertJob = (db: Kysely<DB>, row: DataAgentExecutionJobsTable) =>
  insertRows(db, 'data_agent_execution_jobs', row);

export async function listJobs(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: string; job_type?: string; plane_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('data_agent_execution_jobs').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.job_type) query = query.where('job_type', '=', filters.job_type);
  if (filters.plane_id) query = query.where('plane_id', '=', filters.plane_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toJob) };
}

/**
 * Sets columns of a job only while it is still as the caller read it (status, and the claim when given): a
 * concurrent move makes this a no-op and the caller judges the new state. True when it changed the row.
 */
export async function updateJobIf(
  db: Kysely<DB>,
  row: DataAgentExecutionJobsTable,
  changes: Partial<DataAgentExecutionJobsTable>,
): Promise<boolean> {
  let query = db
    .updateTable('data_agent_execution_jobs')
    .set(changes)
    .where('workspace_id', '=', row.workspace_id)
    .where('id', '=', row.id)
    .where('status', '=', row.status)
    .where('attempts', '=', row.attempts)
    .where('log_count', '=', row.log_count);
  query =
    row.worker_id === null
      ? query.where('worker_id', 'is', null)
      : query.where('worker_id', '=', row.worker_id);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export interface NewLogLine {
  level: string;
  message: string;
  logged_at: string;
}

/** Appends lines after the job's last one (seq log_count + 1, ...); the caller moves log_count with them. */
export async function insertLogLines(
  db: Kysely<DB>,
  row: DataAgentExecutionJobsTable,
  lines: readonly NewLogLine[],
  now: string,
): Promise<void> {
  if (!lines.length) return;
  const rows: DataAgentExecutionJobLogsTable[] = lines.map((line, i) => ({
    workspace_id: row.workspace_id,
    job_id: row.id,
    seq: row.log_count + i + 1,
    level: line.level,
    message: line.message.slice(0, MAX_LOG_MESSAGE),
    logged_at: line.logged_at,
    recorded_at: now,
  }));
  await db.insertInto('data_agent_execution_job_logs').values(rows).execute();
}

/** The job's last `limit` log lines, in order. */
export async function lastLogLines(
  db: Kysely<DB>,
  workspaceId: string,
  jobId: string,
  limit: number,
): Promise<JobLogLine[]> {
  const rows = await db
    .selectFrom('data_agent_execution_job_logs')
    .select(['seq', 'level', 'message', 'logged_at'])
    .where('workspace_id', '=', workspaceId)
    .where('job_id', '=', jobId)
    .orderBy('seq', 'desc')
    .limit(limit)
    .execute();
  return rows.reverse().map((r) => ({ ...r, level: r.level as JobLogLine['level'] }));
}

/** Claimed jobs whose lease ended before `now`, across workspaces (the lease sweep). */
export function expiredClaims(db: Kysely<DB>, now: string, limit: number) {
  return db
    .selectFrom('data_agent_execution_jobs')
    .selectAll()
    .where('lease_expires_at', '<', now)
    .where('status', '=', 'running')
    .orderBy('lease_expires_at')
    .limit(limit)
    .execute();
}
