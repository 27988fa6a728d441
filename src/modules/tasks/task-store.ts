import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import type { DB } from '../../db/tables.ts';
import { type TaskStatus, taskRecord } from './task-records.ts';

export async function listTasks(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: TaskStatus; assignee_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('tasks').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.assignee_id) query = query.where('assignee_id', '=', filters.assignee_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(taskRecord.toRecord) };
}
