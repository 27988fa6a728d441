import type { Kysely } from 'kysely';
import { readRecordCounters } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';

/** Activity counts by type for get_workspace_summary, from the record counters. */
export async function activityCounts(db: Kysely<DB>, workspaceId: string) {
  const { activities } = await readRecordCounters(db, workspaceId, ['activities']);
  const byType: Record<string, number> = { note: 0, call: 0, email: 0, meeting: 0, agent_action: 0 };
  for (const [type, n] of Object.entries(activities.by)) byType[type] = n;
  return { total: activities.total, by_type: byType };
}
