// Ordering of columns in a board and of tasks in a column: positions are 0-based and gap-free. Every write
// that shifts positions or task counts first locks its project's row (PostgreSQL SELECT ... FOR UPDATE;
// task creates take the same lock with their number), so racing moves in a project run one after the
// other, read fresh positions, and cannot deadlock on the rows they shift. SQLite runs one write
// transaction at a time, so reads there are already stable.
import type { OperationContext } from '../../core/context.ts';
import { addToTaskCount, columnCount, columnsByIds, lockProjectRow, shiftColumns } from './project-store.ts';
import type { ProjectBoardColumnsTable, ProjectTasksTable } from './project-tables.ts';
import { findProjectTask, shiftTasks } from './task-store.ts';

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

/** Serializes every position change in a project; call it before reading positions or counts. */
export function lockProject(ctx: OperationContext, projectId: string): Promise<void> {
  return lockProjectRow(ctx.db, ctx.dialect, ctx.workspaceId, projectId);
}

/** Reads columns (fresh task counts) after the project lock. */
export async function readColumns(
  ctx: OperationContext,
  ids: string[],
): Promise<Map<string, ProjectBoardColumnsTable>> {
  const rows = await columnsByIds(ctx.db, ctx.workspaceId, [...new Set(ids)]);
  return new Map(rows.map((row) => [row.id, row]));
}

export function readTask(ctx: OperationContext, id: string): Promise<ProjectTasksTable | undefined> {
  return findProjectTask(ctx.db, ctx.workspaceId, id);
}

/** Makes room for a new column at `position` (default: last) and returns the position it takes. */
export async function openColumnSlot(
  ctx: OperationContext,
  projectId: string,
  boardId: string,
  position?: number,
) {
  await lockProject(ctx, projectId);
  const count = await columnCount(ctx.db, ctx.workspaceId, boardId);
  const slot = clamp(position ?? count, 0, count);
  if (slot < count) await shiftColumns(ctx.db, ctx.workspaceId, boardId, { from: slot, to: count }, 1);
  return slot;
}

/** Moves a column within its board (the caller writes its new position); returns where it was and goes. */
export async function moveColumn(ctx: OperationContext, column: ProjectBoardColumnsTable, position: number) {
  await lockProject(ctx, column.project_id);
  const boardId = column.board_id;
  const current = Number((await readColumns(ctx, [column.id])).get(column.id)!.position);
  const target = clamp(position, 0, (await columnCount(ctx.db, ctx.workspaceId, boardId)) - 1);
  if (target > current)
    await shiftColumns(ctx.db, ctx.workspaceId, boardId, { from: current + 1, to: target }, -1);
  if (target < current)
    await shiftColumns(ctx.db, ctx.workspaceId, boardId, { from: target, to: current - 1 }, 1);
  return { current, target };
}

function shiftColumnTasks(
  ctx: OperationContext,
  columnId: string,
  from: number,
  to: number | null,
  by: 1 | -1,
) {
  return shiftTasks(ctx.db, ctx.workspaceId, columnId, { from, to }, by);
}

/** Makes room for a task in a column (read after the project lock) at `position` (default: last); returns the position it takes. */
export async function openTaskSlot(
  ctx: OperationContext,
  column: ProjectBoardColumnsTable,
  position?: number,
) {
  const count = Number(column.task_count);
  const slot = clamp(position ?? count, 0, count);
  if (slot < count) await shiftColumnTasks(ctx, column.id, slot, null, 1);
  await addToTaskCount(ctx.db, ctx.workspaceId, column.id, 1);
  return slot;
}

/** Closes the gap a task leaves in its column. */
export async function closeTaskSlot(ctx: OperationContext, columnId: string, position: number) {
  await shiftColumnTasks(ctx, columnId, position + 1, null, -1);
  await addToTaskCount(ctx.db, ctx.workspaceId, columnId, -1);
}

/** Moves a task within its column; returns its new position. */
export async function reorderTask(
  ctx: OperationContext,
  column: ProjectBoardColumnsTable,
  current: number,
  position: number,
) {
  const target = clamp(position, 0, Number(column.task_count) - 1);
  if (target > current) await shiftColumnTasks(ctx, column.id, current + 1, target, -1);
  if (target < current) await shiftColumnTasks(ctx, column.id, target, current - 1, 1);
  return target;
}
