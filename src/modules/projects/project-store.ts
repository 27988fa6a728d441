import type { Kysely } from 'kysely';
import { fetchKeysetPage, fetchPage, matchesText, type PageRequest } from '../../core/pagination.ts';
import { findRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type {
  ProjectBoardColumnsTable,
  ProjectBoardsTable,
  ProjectStatus,
  ProjectsTable,
  ProjectTaskStatus,
} from './project-tables.ts';
import type { Project, ProjectBoard, ProjectBoardColumn } from './project-schemas.ts';

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
  if (filters.query) query = query.where(matchesText(['name', 'key', 'description'], filters.query));
  const result = await fetchPage(query, page);
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
  if (filters.query) query = query.where(matchesText(['name', 'description'], filters.query));
  const result = await fetchPage(query, page);
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

/** Active projects and their open (and overdue) tasks for get_workspace_summary, in one query. */
export async function projectCounts(db: Kysely<DB>, workspaceId: string, now: string) {
  const activeProjects = (eb: any) =>
    eb
      .selectFrom('projects')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', 'active');
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('projects')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', 'active')
        .as('active_projects'),
      eb
        .selectFrom('project_tasks')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('status', 'in', OPEN_TASK_STATUSES)
        .where('project_id', 'in', activeProjects(eb))
        .as('open_tasks'),
      eb
        .selectFrom('project_tasks')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('status', 'in', OPEN_TASK_STATUSES)
        .where('project_id', 'in', activeProjects(eb))
        .where('due_at', '<', now)
        .as('overdue_tasks'),
    ])
    .executeTakeFirstOrThrow();
  return {
    active_projects: Number(row.active_projects),
    open_tasks: Number(row.open_tasks),
    overdue_tasks: Number(row.overdue_tasks),
  };
}
