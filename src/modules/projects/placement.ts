// Ordering of columns in a board and of tasks in a column: positions are 0-based and gap-free. Every write
// that shifts positions or task counts first locks its project's row (PostgreSQL SELECT ... FOR UPDATE;
// task creates take the same lock with their number), so racing moves in a project run one after the
// other, read fresh positions, and cannot deadlock on the rows they shift. SQLite runs one write
// transaction at a time, so reads there are already stable.
import type { OperationContext } from '../../core/context.ts';
import type { ProjectBoardColumnsTable, ProjectTasksTable } from './project-tables.ts';

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

/** Serializes every position change in a project; call it before reading positions or counts. */
export async function lockProject(ctx: OperationContext, projectId: string): Promise<void> {
  if (ctx.dialect !== 'postgres') return;
  await ctx.db
    .selectFrom('projects')
    .select('id')
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', '=', projectId)
    .forUpdate()
    .execute();
}

/** Reads columns (fresh task counts) after the project lock. */
export async function readColumns(
  ctx: OperationContext,
  ids: string[],
): Promise<Map<string, ProjectBoardColumnsTable>> {
  const unique = [...new Set(ids)];
  if (!unique.length) return new Map();
  const rows = await ctx.db
    .selectFrom('project_board_columns')
    .selectAll()
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', 'in', unique)
    .execute();
  return new Map(rows.map((row) => [row.id, row]));
}

export function readTask(ctx: OperationContext, id: string): Promise<ProjectTasksTable | undefined> {
  return ctx.db
    .selectFrom('project_tasks')
    .selectAll()
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

async function columnCount(ctx: OperationContext, boardId: string): Promise<number> {
  const row = await ctx.db
    .selectFrom('project_board_columns')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', ctx.workspaceId)
    .where('board_id', '=', boardId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function shiftColumns(ctx: OperationContext, boardId: string, from: number, to: number, by: 1 | -1) {
  await ctx.db
    .updateTable('project_board_columns')
    .set((eb) => ({ position: eb('position', '+', by) }))
    .where('workspace_id', '=', ctx.workspaceId)
    .where('board_id', '=', boardId)
    .where('position', '>=', from)
    .where('position', '<=', to)
    .execute();
}

/** Makes room for a new column at `position` (default: last) and returns the position it takes. */
export async function openColumnSlot(
  ctx: OperationContext,
  projectId: string,
  boardId: string,
  position?: number,
) {
  await lockProject(ctx, projectId);
  const count = await columnCount(ctx, boardId);
  const slot = clamp(position ?? count, 0, count);
  if (slot < count) await shiftColumns(ctx, boardId, slot, count, 1);
  return slot;
}

/** Moves a column within its board (the caller writes its new position); returns where it was and goes. */
export async function moveColumn(ctx: OperationContext, column: ProjectBoardColumnsTable, position: number) {
  await lockProject(ctx, column.project_id);
  const boardId = column.board_id;
  const current = Number((await readColumns(ctx, [column.id])).get(column.id)!.position);
  const target = clamp(position, 0, (await columnCount(ctx, boardId)) - 1);
  if (target > current) await shiftColumns(ctx, boardId, current + 1, target, -1);
  if (target < current) await shiftColumns(ctx, boardId, target, current - 1, 1);
  return { current, target };
}

async function shiftTasks(
  ctx: OperationContext,
  columnId: string,
  from: number,
  to: number | null,
  by: 1 | -1,
) {
  let query = ctx.db
    .updateTable('project_tasks')
    .set((eb) => ({ position: eb('position', '+', by) }))
    .where('workspace_id', '=', ctx.workspaceId)
    .where('column_id', '=', columnId)
    .where('position', '>=', from);
  if (to !== null) query = query.where('position', '<=', to);
  await query.execute();
}

async function addToCount(ctx: OperationContext, columnId: string, by: 1 | -1) {
  await ctx.db
    .updateTable('project_board_columns')
    .set((eb) => ({ task_count: eb('task_count', '+', by) }))
    .where('workspace_id', '=', ctx.workspaceId)
    .where('id', '=', columnId)
    .execute();
}

/** Makes room for a task in a column (read after the project lock) at `position` (default: last); returns the position it takes. */
export async function openTaskSlot(
  ctx: OperationContext,
  column: ProjectBoardColumnsTable,
  position?: number,
) {
  const count = Number(column.task_count);
  const slot = clamp(position ?? count, 0, count);
  if (slot < count) await shiftTasks(ctx, column.id, slot, null, 1);
  await addToCount(ctx, column.id, 1);
  return slot;
}

/** Closes the gap a task leaves in its column. */
export async function closeTaskSlot(ctx: OperationContext, columnId: string, position: number) {
  await shiftTasks(ctx, columnId, position + 1, null, -1);
  await addToCount(ctx, columnId, -1);
}

/** Moves a task within its column; returns its new position. */
export async function reorderTask(
  ctx: OperationContext,
  column: ProjectBoardColumnsTable,
  current: number,
  position: number,
) {
  const target = clamp(position, 0, Number(column.task_count) - 1);
  if (target > current) await shiftTasks(ctx, column.id, current + 1, target, -1);
  if (target < current) await shiftTasks(ctx, column.id, target, current - 1, 1);
  return target;
}
