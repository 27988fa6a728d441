import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import { containsPattern, type KeysetColumn, type PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { ProjectTask } from './project-schemas.ts';
import type { Priority, ProjectTaskStatus, ProjectTasksTable } from './project-tables.ts';

export function toProjectTask(row: ProjectTasksTable): ProjectTask {
  return {
    id: row.id,
    key: row.key,
    number: Number(row.number),
    project_id: row.project_id,
    board_id: row.board_id,
    column_id: row.column_id,
    position: row.position === null ? null : Number(row.position),
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    estimate: row.estimate === null ? null : Number(row.estimate),
    labels: JSON.parse(row.labels) as string[],
    assignee_id: row.assignee_id,
    due_at: row.due_at,
    completed_at: row.completed_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * Hands out the project's next task number. The UPDATE takes the project row's lock (PostgreSQL) inside
 * the create's transaction, so racing creates are numbered one after the other, without gaps or repeats:
 * a create that fails later rolls its number back with it.
 */
export async function nextTaskNumber(db: Kysely<DB>, workspaceId: string, projectId: string) {
  const row = await db
    .updateTable('projects')
    .set((eb) => ({ next_task_number: eb('next_task_number', '+', 1) }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', projectId)
    .returning(['next_task_number', 'key'])
    .executeTakeFirstOrThrow();
  return { number: Number(row.next_task_number), projectKey: row.key };
}

export interface TaskFilters {
  project_id?: string;
  board_id?: string;
  column_id?: string;
  assignee_id?: string;
  status?: ProjectTaskStatus;
  priority?: Priority;
  label?: string;
  key?: string;
  query?: string;
}

/** Newest first; within one column (column_id given) in board order, by position. */
export async function listProjectTasks(
  db: Kysely<DB>,
  workspaceId: string,
  filters: TaskFilters,
  page: PageRequest,
) {
  let query = db.selectFrom('project_tasks').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.project_id) query = query.where('project_id', '=', filters.project_id);
  if (filters.board_id) query = query.where('board_id', '=', filters.board_id);
  if (filters.column_id) query = query.where('column_id', '=', filters.column_id);
  if (filters.assignee_id) query = query.where('assignee_id', '=', filters.assignee_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.priority) query = query.where('priority', '=', filters.priority);
  if (filters.key) query = query.where('key', '=', filters.key);
  if (filters.label) {
    // labels is a JSON array of strings: match the label's JSON encoding, quotes included.
    const pattern = containsPattern(JSON.stringify(filters.label));
    query = query.where(sql<boolean>`lower(labels) like ${pattern} escape '\\'`);
  }
  // A column's tasks come in board order; other lists newest first.
  const order: KeysetColumn[] = filters.column_id
    ? [
        { column: 'position', direction: 'asc', type: 'integer' },
        { column: 'id', direction: 'asc', type: 'string' },
      ]
    : [{ column: 'id', direction: 'desc', type: 'string' }];
  const result = await fetchSearchPage(
    db,
    query,
    page,
    { table: 'project_tasks', workspaceId, text: filters.query },
    order,
  );
  return { ...result, items: result.items.map(toProjectTask) };
}

export const findProjectTask = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'project_tasks', workspaceId, id);

export const insertProjectTask = (db: Kysely<DB>, row: ProjectTasksTable) =>
  insertRows(db, 'project_tasks', row);

export function updateProjectTaskRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProjectTasksTable>,
) {
  return updateRow(db, 'project_tasks', workspaceId, id, changes);
}

/** Moves the column's tasks at positions from..to (to null: to the end) by one place. */
export async function shiftTasks(
  db: Kysely<DB>,
  workspaceId: string,
  columnId: string,
  range: { from: number; to: number | null },
  by: 1 | -1,
) {
  let query = db
    .updateTable('project_tasks')
    .set((eb) => ({ position: eb('position', '+', by) }))
    .where('workspace_id', '=', workspaceId)
    .where('column_id', '=', columnId)
    .where('position', '>=', range.from);
  if (range.to !== null) query = query.where('position', '<=', range.to);
  await query.execute();
}
