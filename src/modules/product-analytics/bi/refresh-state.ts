// The refresh state of reports and insight views, read in batches (one query for their schedules, one for
// the candidate runs, whatever the page size). The latest refresh is the newest of the object's own last
// run and its schedules' last runs: a scheduled run that fails rolls back the work's writes (PostgreSQL),
// so only the schedule's pointer, written when the run started, names it.
import type { Kysely } from 'kysely';
import type { RunStatus } from '../../../core/run-resource.ts';
import type { DB } from '../../../db/tables.ts';
import type { RefreshColumns } from './bi-object-tables.ts';
import type { BiResult } from './run-query.ts';
import type { ScheduleTargetType } from './schedule-tables.ts';

export interface RefreshState {
  ever_refreshed: boolean;
  last_refreshed_at: string | null;
  last_refresh_status: RunStatus | null;
  last_refresh_run_id: string | null;
  last_refresh_error: { code: string; message: string } | null;
  scheduled: boolean;
  schedule_ids: string[];
  next_refresh_at: string | null;
  last_result: BiResult | null;
}

type Refreshable = RefreshColumns & { id: string };

/** The refresh state of each row, by ID. */
export async function refreshStates(
  db: Kysely<DB>,
  workspaceId: string,
  targetType: ScheduleTargetType,
  rows: Refreshable[],
): Promise<Map<string, RefreshState>> {
  const states = new Map<string, RefreshState>();
  if (!rows.length) return states;
  const ids = rows.map((r) => r.id);
  const schedules = await db
    .selectFrom('bi_scheduled_artifacts')
    .select(['id', 'target_id', 'status', 'next_run_at', 'last_run_id'])
    .where('workspace_id', '=', workspaceId)
    .where('target_type', '=', targetType)
    .where('target_id', 'in', ids)
    .where('archived_at', 'is', null)
    .orderBy('id')
    .execute();
  const runIds = new Set<string>();
  for (const r of rows) if (r.last_run_id) runIds.add(r.last_run_id);
  for (const s of schedules) if (s.last_run_id) runIds.add(s.last_run_id);
  const runs = runIds.size
    ? await db
        .selectFrom('runs')
        .select(['id', 'status', 'queued_at', 'error_code', 'error_message'])
        .where('workspace_id', '=', workspaceId)
        .where('id', 'in', [...runIds])
        .execute()
    : [];
  const runById = new Map(runs.map((r) => [r.id, r]));
  for (const row of rows) {
    const own = schedules.filter((s) => s.target_id === row.id);
    const active = own.filter((s) => s.status === 'active' && s.next_run_at);
    const candidates = [row.last_run_id, ...own.map((s) => s.last_run_id)]
      .map((id) => (id ? runById.get(id) : undefined))
      .filter((r) => r !== undefined);
    // Run IDs are time-ordered; queued_at breaks nothing when two runs share a millisecond.
    const latest = candidates.sort((a, b) =>
      a.queued_at === b.queued_at ? (a.id < b.id ? 1 : -1) : a.queued_at < b.queued_at ? 1 : -1,
    )[0];
    states.set(row.id, {
      ever_refreshed: row.last_refreshed_at !== null,
      last_refreshed_at: row.last_refreshed_at,
      last_refresh_status: (latest?.status as RunStatus | undefined) ?? null,
      last_refresh_run_id: latest?.id ?? null,
      last_refresh_error: latest?.error_code
        ? { code: latest.error_code, message: latest.error_message ?? '' }
        : null,
      scheduled: active.length > 0,
      schedule_ids: own.map((s) => s.id),
      next_refresh_at: active.map((s) => s.next_run_at!).sort()[0] ?? null,
      last_result: row.last_result ? (JSON.parse(row.last_result) as BiResult) : null,
    });
  }
  return states;
}

/** Refresh state of one row (a lookup or a write's answer). */
export async function refreshState(
  db: Kysely<DB>,
  workspaceId: string,
  targetType: ScheduleTargetType,
  row: Refreshable,
): Promise<RefreshState> {
  return (await refreshStates(db, workspaceId, targetType, [row])).get(row.id)!;
}
