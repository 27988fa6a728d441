import type { Kysely } from 'kysely';
import { fetchKeysetPage, type PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { Dialect } from '../../db/database.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Project, ProjectBoard, ProjectBoardColumn } from './project-schemas.ts';
import type {
  ProjectBoardColumnsTable,
  ProjectBoardsTable,
  ProjectStatus,
  ProjectsTable,
  ProjectTaskStatus,
} from './project-tables.ts';

export const OPEN_TASK_STATUSES: ProjectTaskStatus[] = ['backlog', 'todo', 'in_progress'];

export function toProject(row: ProjectsTable): Project {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    status: row.status,
    owner_id: row.owner_id,
    start_date: row.start_date,
    target_date: row.target_date,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toBoard(row: ProjectBoardsTable): ProjectBoard {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toColumn(row: ProjectBoardColumnsTable): ProjectBoardColumn {
  const taskCount = Number(row.task_count);
  return {
    id: row.id,
    project_id: row.project_id,
    board_id: row.board_id,
    name: row.name,
    position: Number(row.position),
    wip_limit: row.wip_limit === null ? null : Number(row.wip_limit),
    task_status: row.task_status,
    task_count: taskCount,
    // Reported, never enforced: a column may hold more tasks than its limit.
    over_wip_limit: row.wip_limit !== null && taskCount > Number(row.wip_limit),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const insertProject = (db: Kysely<DB>, row: ProjectsTable) => insertRows(db, 'projects', row);
export const insertBoard = (db: Kysely<DB>, row: ProjectBoardsTable) => insertRows(db, 'project_boards', row);
export const insertColumn = (db: Kysely<DB>, row: ProjectBoardColumnsTable) =>
  insertRows(db, 'project_board_columns', row);

export function updateProjectRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProjectsTable>,
) {
  return updateRow(db, 'projects', workspaceId, id, changes);
}

export function updateBoardRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProjectBoardsTable>,
) {
  return updateRow(db, 'project_boards', workspaceId, id, changes);
}

export function updateColumnRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProjectBoardColumnsTable>,
) {
  return updateRow(db, 'project_board_columns', workspaceId, id, changes);
}

/** PostgreSQL: locks the project's row until the transaction ends (see placement.ts). SQLite needs none. */
export async function lockProjectRow(
  db: Kysely<DB>,
  dialect: Dialect,
  workspaceId: string,
  projectId: string,
) {
  if (dialect !== 'postgres') return;
  await db
    .selectFrom('projects')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', projectId)
    .forUpdate()
    .execute();
}

export async function columnsByIds(db: Kysely<DB>, workspaceId: string, ids: string[]) {
  if (!ids.length) return [];
  return db
    .selectFrom('project_board_columns')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
}

/** The board's first column (lowest position), if it has one. */
export function firstColumn(db: Kysely<DB>, workspaceId: string, boardId: string) {
  return db
    .selectFrom('project_board_columns')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('board_id', '=', boardId)
    .orderBy('position')
    .executeTakeFirst();
}

export async function columnCount(db: Kysely<DB>, workspaceId: string, boardId: string): Promise<number> {
  const row = await db
    .selectFrom('project_board_columns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('board_id', '=', boardId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Moves the board's columns at positions from..to by one place. */
export async function shiftColumns(
  db: Kysely<DB>,
  workspaceId: string,
  boardId: string,
  range: { from: number; to: number },
  by: 1 | -1,
) {
  await db
    .updateTable('project_board_columns')
    .set((eb) => ({ position: eb('position', '+', by) }))
    .where('workspace_id', '=', workspaceId)
    .where('board_id', '=', boardId)
    .where('position', '>=', range.from)
    .where('position', '<=', range.to)
    .execute();
}

export async function addToTaskCount(db: Kysely<DB>, workspaceId: string, columnId: string, by: 1 | -1) {
  await db
    .updateTable('project_board_columns')
    .set((eb) => ({ task_count: eb('task_count', '+', by) }))
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', columnId)
    .execute();
}

export function findProject(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'projects', workspaceId, id);
}

export function findBoard(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'project_boards', workspaceId, id);
}

export function findColumn(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'project_board_columns', workspaceId, id);
}

export async function listProjects(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: ProjectStatus; owner_id?: string; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('projects').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.owner_id) query = query.where('owner_id', '=', filters.owner_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'projects',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toProject) };
}

export async function listBoards(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { project_id?: string; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('project_boards').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.project_id) query = query.where('project_id', '=', filters.project_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'project_boards',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toBoard) };
}

/** Columns in board order: oldest board first, then position. */
export async function listColumns(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { project_id?: string; board_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('project_board_columns').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.project_id) query = query.where('project_id', '=', filters.project_id);
  if (filters.board_id) query = query.where('board_id', '=', filters.board_id);
  const result = await fetchKeysetPage(query, page, [
    { column: 'board_id', direction: 'asc', type: 'string' },
    { column: 'position', direction: 'asc', type: 'integer' },
    { column: 'id', direction: 'asc', type: 'string' },
  ]);
  return { ...result, items: result.items.map(toColumn) };
}
