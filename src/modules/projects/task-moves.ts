import { Type } from '@sinclair/typebox';
import { diffFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { closeTaskSlot, lockProject, openTaskSlot, readColumns, readTask, reorderTask } from './placement.ts';
import type { ProjectTasksTable } from './project-tables.ts';
import { resolveColumn } from './project-tasks.ts';
import { priority, taskFields, taskStatus } from './task-schema.ts';
import { toProjectTask, updateProjectTaskRow } from './task-store.ts';

const FIELDS = ['title', 'description', 'status', 'priority', 'estimate', 'assignee_id', 'due_at'] as const;
const PLACEMENT = ['board_id', 'column_id', 'position'] as const;

interface UpdateInput {
  project_task_id: string;
  board_id?: string | null;
  column_id?: string | null;
  position?: number;
  labels?: string[];
  [field: string]: unknown;
}

/** Where the task should end up: a column ID, null (off every board), or undefined (placement unchanged). */
async function targetColumnId(ctx: OperationContext, task: ProjectTasksTable, input: UpdateInput) {
  const { board_id: boardId, column_id: columnId, position } = input;
  if (boardId === null || columnId === null) {
    if (typeof boardId === 'string' || typeof columnId === 'string') {
      throw validationFailed([
        {
          field: 'column_id',
          message: 'send board_id and column_id both null to take the task off its board',
        },
      ]);
    }
    if (position !== undefined) throw validationFailed([{ field: 'position', message: 'needs a column' }]);
    return null;
  }
  if (columnId)
    return (await resolveColumn(ctx, task.project_id, { board_id: boardId, column_id: columnId })).id;
  if (boardId) {
    if (task.board_id === boardId && task.column_id) {
      return task.column_id;
    }
    return (await resolveColumn(ctx, task.project_id, { board_id: boardId })).id;
  }
  if (position !== undefined) {
    if (!task.column_id)
      throw validationFailed([{ field: 'position', message: 'the task is not on a board; send column_id' }]);
    return task.column_id;
  }
  return undefined;
}

/** Applies a placement change with the columns locked; returns the placement columns to write. */
async function move(
  ctx: OperationContext,
  task: ProjectTasksTable,
  target: string | null,
  position?: number,
) {
  const source = task.column_id;
  const columns = await readColumns(
    ctx,
    [source, target].filter((id): id is string => Boolean(id)),
  );
  if (source && source === target) {
    if (position === undefined) return { placement: {}, column: undefined };
    const next = await reorderTask(ctx, columns.get(source)!, Number(task.position), position);
    return { placement: { position: next }, column: undefined };
  }
  if (source) await closeTaskSlot(ctx, source, Number(task.position));
  if (!target) return { placement: { board_id: null, column_id: null, position: null }, column: undefined };
  const column = columns.get(target)!;
  const slot = await openTaskSlot(ctx, column, position);
  return { placement: { board_id: column.board_id, column_id: column.id, position: slot }, column };
}

export const updateProjectTask = defineOperation({
  name: 'update_project_task',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'update',
  summary: 'Update or move a project task',
  description:
    "Changes a project task's fields and/or moves it: column_id on any board of its project (board_id alone: that board's first column, or its current one there); position alone reorders within the column; null board_id and column_id take it off its board. Positions stay 0..n-1 under concurrent moves. Entering a column with a task_status sets that status unless status is sent. Emits project_task.moved on a placement change, project_task.updated on others.",
  input: Strict({
    project_task_id: Type.String({ minLength: 1 }),
    title: Type.Optional(taskFields.title),
    description: Type.Optional(Nullable(taskFields.description)),
    status: Type.Optional(taskStatus()),
    priority: Type.Optional(priority()),
    estimate: Type.Optional(Nullable(taskFields.estimate)),
    labels: Type.Optional(taskFields.labels),
    assignee_id: Type.Optional(Nullable(taskFields.assignee_id)),
    due_at: Type.Optional(Nullable(taskFields.due_at)),
    board_id: Type.Optional(Nullable(taskFields.board_id)),
    column_id: Type.Optional(Nullable(taskFields.column_id)),
    position: Type.Optional(taskFields.position),
  }),
  rest: { method: 'PATCH', path: '/v1/projects/tasks/{project_task_id}' },
  responseKey: 'project_task',
  handler: async (ctx, rawInput) => {
    const input = rawInput as UpdateInput;
    requireSomeField(input, [...FIELDS, 'labels', ...PLACEMENT]);
    const found = await readTask(ctx, input.project_task_id);
    if (!found) throw notFound('project task');
    // A move locks the project before reading positions (placement.ts); the task is read again after it.
    const placing = PLACEMENT.some((field) => input[field] !== undefined);
    if (placing) await lockProject(ctx, found.project_id);
    const task = placing ? (await readTask(ctx, found.id))! : found;
    const dueAt = typeof input.due_at === 'string' ? new Date(input.due_at).toISOString() : input.due_at;
    const proposed = { ...input, due_at: dueAt, labels: input.labels && JSON.stringify(input.labels) };
    const { changes, changed } = diffFields(task, proposed, [...FIELDS, 'labels']);
    const target = await targetColumnId(ctx, task, input);
    const moved =
      target === undefined
        ? { placement: {}, column: undefined }
        : await move(ctx, task, target, input.position);
    const placementChanged = PLACEMENT.filter(
      (f) => f in moved.placement && (moved.placement as any)[f] !== task[f],
    );
    if (moved.column?.task_status && input.status === undefined && moved.column.task_status !== task.status) {
      changes.status = moved.column.task_status;
      changed.push('status');
    }
    if (changes.status !== undefined) changes.completed_at = changes.status === 'done' ? ctx.now : null;

    const next: ProjectTasksTable = { ...task, ...changes, ...moved.placement };
    if (changed.length || placementChanged.length) {
      next.updated_at = ctx.now;
      await updateProjectTaskRow(ctx.db, ctx.workspaceId, task.id, {
        ...changes,
        ...moved.placement,
        updated_at: ctx.now,
      });
    }
    const projectTask = toProjectTask(next);
    ctx.audit({
      targetType: 'project_task',
      targetId: task.id,
      changedFields: [...changed, ...placementChanged],
    });
    if (placementChanged.length) {
      const movedFrom = { board_id: task.board_id, column_id: task.column_id, position: task.position };
      ctx.emit({
        name: 'project_task.moved',
        targetType: 'project_task',
        targetId: task.id,
        data: { ...projectTask, moved_from: movedFrom },
      });
    }
    if (changed.length) {
      ctx.emit({
        name: 'project_task.updated',
        targetType: 'project_task',
        targetId: task.id,
        data: projectTask,
      });
    }
    return { body: { project_task: projectTask } };
  },
});
