import type { Kysely } from 'kysely';
import { readRecordCounters } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';

/** Task counts by status for get_workspace_summary, from the record counters. */
export async function taskCounts(db: Kysely<DB>, workspaceId: string) {
  const { tasks } = await readRecordCounters(db, workspaceId, ['tasks']);
  return { open: tasks.by.open ?? 0, completed: tasks.by.completed ?? 0, canceled: tasks.by.canceled ?? 0 };
}
