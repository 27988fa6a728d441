// Queries of the workspace assistant's summary: open deals by stage, recent activity, recent agent runs.
// Each reads a few rows through an index of the workspace (no counting of whole tables: counts come from the
// record counters).
import type { Kysely } from 'kysely';
import type { DB, RunsTable } from '../../../db/tables.ts';

/** Open deals (closed_at null) per stage and currency: count and value in cents. */
export async function openDealsByStage(db: Kysely<DB>, workspaceId: string) {
  const rows = await db
    .selectFrom('deals')
    .select((eb) => [
      'stage_key',
      'currency',
      eb.fn.countAll<number>().as('n'),
      eb.fn.sum<number>('amount_cents').as('amount'),
    ])
    .where('workspace_id', '=', workspaceId)
    .where('closed_at', 'is', null)
    .groupBy(['stage_key', 'currency'])
    .orderBy('stage_key')
    .execute();
  return rows.map((r) => ({
    stage_key: r.stage_key,
    currency: r.currency,
    count: Number(r.n),
    amount_cents: Number(r.amount ?? 0),
  }));
}

/** The latest activities, newest first (IDs are time-ordered). */
export function recentActivities(db: Kysely<DB>, workspaceId: string, limit: number) {
  return db
    .selectFrom('activities')
    .select(['id', 'type', 'summary', 'related_resource_type', 'related_resource_id', 'occurred_at'])
    .where('workspace_id', '=', workspaceId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** The latest Agent Grid runs, newest first. */
export function recentAgentRuns(db: Kysely<DB>, workspaceId: string, limit: number) {
  return db
    .selectFrom('agent_grid_runs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * A run that is complete when recorded (a plan-mode assistant call: nothing to do in the background), so
 * every assistant call is a run and an idempotency key binds to it like a started one.
 */
export async function insertFinishedRun(db: Kysely<DB>, row: RunsTable): Promise<void> {
  await db.insertInto('runs').values(row).execute();
}
