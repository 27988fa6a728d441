// Queries of scheduled artifacts. A schedule's last status and error are its last run's (the runs table),
// joined on read, so they can never disagree with the run. Every query filters by workspace_id except the
// scheduler's sweep for due rows, which looks across workspaces by (status, next_run_at).
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { RunStatus } from '../../../core/run-resource.ts';
import type { DB } from '../../../db/tables.ts';
import type { DayOfMonth, ScheduleRule } from './schedule-rules.ts';
import type { ScheduledArtifact } from './schedule-schemas.ts';
import type { BiScheduledArtifactsTable, ScheduleStatus } from './schedule-tables.ts';

/** A schedule's row with its last run's status and error. */
export interface ScheduleRow extends BiScheduledArtifactsTable {
  last_status: RunStatus | null;
  last_error_code: string | null;
  last_error_message: string | null;
}

export const dayOfMonthOf = (stored: string | null): DayOfMonth | null =>
  stored === null ? null : stored === 'last' ? 'last' : Number(stored);

export function ruleOf(row: BiScheduledArtifactsTable): ScheduleRule {
  return {
    cadence: row.cadence,
    minute: Number(row.minute),
    hour: row.hour === null ? null : Number(row.hour),
    weekday: row.weekday,
    day_of_month: dayOfMonthOf(row.day_of_month),
    timezone: row.timezone,
  };
}

/** The stored columns of a rule. */
export function ruleColumns(rule: ScheduleRule) {
  return {
    cadence: rule.cadence,
    minute: rule.minute,
    hour: rule.hour,
    weekday: rule.weekday,
    day_of_month: rule.day_of_month === null ? null : String(rule.day_of_month),
    timezone: rule.timezone,
  };
}

export function toScheduledArtifact(row: ScheduleRow): ScheduledArtifact {
  const rule = ruleOf(row);
  return {
    id: row.id,
    name: row.name,
    target: { type: row.target_type, id: row.target_id },
    ...rule,
    status: row.status,
    next_run_at: row.next_run_at,
    last_run_at: row.last_run_at,
    last_run_id: row.last_run_id,
    last_status: row.last_status ?? null,
    last_error: row.last_error_code
      ? { code: row.last_error_code, message: row.last_error_message ?? '' }
      : null,
    owner_credential_id: row.owner_credential_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

function withLastRun(db: Kysely<DB>, workspaceId: string) {
  return db
    .selectFrom('bi_scheduled_artifacts as s')
    .leftJoin('runs as r', (join) =>
      join.onRef('r.workspace_id', '=', 's.workspace_id').onRef('r.id', '=', 's.last_run_id'),
    )
    .selectAll('s')
    .select([
      'r.status as last_status',
      'r.error_code as last_error_code',
      'r.error_message as last_error_message',
    ])
    .where('s.workspace_id', '=', workspaceId);
}

/** One schedule of the workspace (archived ones too: callers decide), with its last run. */
export function findSchedule(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
): Promise<ScheduleRow | undefined> {
  return withLastRun(db, workspaceId).where('s.id', '=', id).executeTakeFirst() as Promise<
    ScheduleRow | undefined
  >;
}

export async function insertSchedule(db: Kysely<DB>, row: BiScheduledArtifactsTable): Promise<void> {
  await db.insertInto('bi_scheduled_artifacts').values(row).execute();
}

export interface ScheduleFilters {
  status?: ScheduleStatus;
  target_id?: string;
}

/** Live schedules, newest first (one query with their last runs). */
export async function listSchedules(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ScheduleFilters,
  page: PageRequest,
) {
  let query = withLastRun(db, workspaceId).where('s.archived_at', 'is', null);
  if (filters.status) query = query.where('s.status', '=', filters.status);
  if (filters.target_id) query = query.where('s.target_id', '=', filters.target_id);
  const result = await fetchPage(query as never, page, 's.id');
  return { ...result, items: (result.items as ScheduleRow[]).map(toScheduledArtifact) };
}

export async function updateScheduleRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiScheduledArtifactsTable>,
): Promise<void> {
  await db
    .updateTable('bi_scheduled_artifacts')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/**
 * Active, live schedules whose next occurrence is at or before `now`, across workspaces, oldest first. A
 * deleted workspace's schedules are left out: they would fail every period and hold places in the batch.
 */
export function dueSchedules(
  db: Kysely<DB>,
  now: string,
  limit: number,
): Promise<BiScheduledArtifactsTable[]> {
  return db
    .selectFrom('bi_scheduled_artifacts as s')
    .innerJoin('workspaces as w', 'w.id', 's.workspace_id')
    .selectAll('s')
    .where('s.status', '=', 'active')
    .where('s.next_run_at', '<=', now)
    .where('s.archived_at', 'is', null)
    .where('w.deleted_at', 'is', null)
    .orderBy('s.next_run_at')
    .limit(limit)
    .execute();
}

/**
 * Takes one occurrence of a schedule: moves next_run_at from the value read to the next one and sets
 * last_run_at, only if no other node did it first (the row still holds the value read and is active).
 * True when this caller won the occurrence.
 */
export async function claimOccurrence(
  db: Kysely<DB>,
  row: BiScheduledArtifactsTable,
  changes: { next_run_at: string; last_run_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('bi_scheduled_artifacts')
    .set(changes)
    .where('workspace_id', '=', row.workspace_id)
    .where('id', '=', row.id)
    .where('next_run_at', '=', row.next_run_at)
    .where('status', '=', 'active')
    .where('archived_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
