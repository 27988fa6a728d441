import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { findRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Task } from './task-schemas.ts';
import type { TasksTable } from './task-tables.ts';

export type TaskStatus = TasksTable['status'];

export function toTask(row: TasksTable): Task {
  return {
    id: row.id,
    title: row.title,
    description: row.description,
    status: row.status,
    due_at: row.due_at,
    assignee_id: row.assignee_id,
    related_resource_type: row.related_resource_type,
    related_resource_id: row.related_resource_id,
    completed_note: row.completed_note,
    completed_at: row.completed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function insertTask(db: Kysely<DB>, row: TasksTable) {
  await db.insertInto('tasks').values(row).execute();
  return toTask(row);
}

export function findTask(db: Kysely<DB>, workspaceId: string, taskId: string) {
  return findRow(db, 'tasks', workspaceId, taskId);
}

export async function updateTaskRow(
  db: Kysely<DB>,
  workspaceId: string,
  taskId: string,
  changes: Partial<Pick<TasksTable, 'status' | 'completed_note' | 'completed_at' | 'updated_at'>>,
) {
  await db
    .updateTable('tasks')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', taskId)
    .execute();
}

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
  return { ...result, items: result.items.map(toTask) };
}
