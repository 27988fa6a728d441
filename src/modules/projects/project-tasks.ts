import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import { openTaskSlot, readColumns } from './placement.ts';
import { ProjectTaskSchema } from './project-schemas.ts';
import { findBoard, findColumn, firstColumn } from './project-store.ts';
import type { ProjectBoardColumnsTable, ProjectTaskStatus, ProjectTasksTable } from './project-tables.ts';
import { priority, taskFields, taskStatus } from './task-schema.ts';
import {
  insertProjectTask,
  listProjectTasks,
  nextTaskNumber,
  type TaskFilters,
  toProjectTask,
} from './task-store.ts';

export const projectTaskRecord = defineRecordType({
  type: 'project_task',
  module: 'projects',
  table: 'project_tasks',
  collection: '/v1/projects/tasks',
  key: 'project_task',
  readScope: 'projects:read',
  schema: ProjectTaskSchema,
  toResource: toProjectTask,
});

/**
 * The column a task goes to from board_id and/or column_id, checked against the task's project: a column of
 * another board, or a board or column of another project, is validation_failed; unknown IDs are 404.
 */
export async function resolveColumn(
  ctx: OperationContext,
  projectId: string,
  input: { board_id?: string; column_id?: string },
): Promise<ProjectBoardColumnsTable> {
  if (input.column_id) {
    const column = await findColumn(ctx.db, ctx.workspaceId, input.column_id);
    if (!column) throw notFound('project board column');
    if (input.board_id) {
      if (!(await findBoard(ctx.db, ctx.workspaceId, input.board_id))) throw notFound('project board');
      if (column.board_id !== input.board_id) {
        throw validationFailed([
          { field: 'column_id', message: `is a column of another board (${column.board_id})` },
        ]);
      }
    }
    if (column.project_id !== projectId) {
      throw validationFailed([{ field: 'column_id', message: "is a column of another project's board" }]);
    }
    return column;
  }
  const board = await findBoard(ctx.db, ctx.workspaceId, input.board_id!);
  if (!board) throw notFound('project board');
  if (board.project_id !== projectId) {
    throw validationFailed([{ field: 'board_id', message: 'is a board of another project' }]);
  }
  const first = await firstColumn(ctx.db, ctx.workspaceId, board.id);
  if (!first) throw validationFailed([{ field: 'board_id', message: 'has no columns; add one first' }]);
  return first;
}

export const createProjectTask = defineOperation({
  name: 'create_project_task',
  module: 'projects',
  scopes: ['projects:write'],
  kind: 'create',
  creates: 'project_task',
  summary: 'Create a project task',
  description:
    "Creates a task in a project with its next human key (WEB-1, WEB-2 ...; never reused or skipped), optionally placed on a board of the project: column_id (board_id alone means the first column) and position. status defaults to the column's task_status, else todo. Not for CRM follow-ups (create_task). Emits project_task.created.",
  input: Strict({
    project_id: Type.String({ minLength: 1 }),
    title: taskFields.title,
    description: Type.Optional(taskFields.description),
    status: Type.Optional(taskStatus()),
    priority: Type.Optional(priority('Default none.')),
    estimate: Type.Optional(taskFields.estimate),
    labels: Type.Optional(taskFields.labels),
    assignee_id: Type.Optional(taskFields.assignee_id),
    due_at: Type.Optional(taskFields.due_at),
    board_id: Type.Optional(taskFields.board_id),
    column_id: Type.Optional(taskFields.column_id),
    position: Type.Optional(taskFields.position),
  }),
  rest: { method: 'POST', path: '/v1/projects/tasks' },
  responseKey: 'project_task',
  handler: async (ctx, input) => {
    const project = await ctx.requireRecord('project', input.project_id);
    if (project.status === 'archived') {
      throw validationFailed([
        { field: 'project_id', message: 'is archived; change its status to add tasks' },
      ]);
    }
    if (input.position !== undefined && !input.board_id && !input.column_id) {
      throw validationFailed([{ field: 'position', message: 'needs board_id or column_id' }]);
    }
    const target =
      input.board_id || input.column_id ? await resolveColumn(ctx, input.project_id, input) : undefined;
    // The number's UPDATE locks the project row: the column's count is read after it (see placement.ts).
    const { number, projectKey } = await nextTaskNumber(ctx.db, ctx.workspaceId, input.project_id);
    const column = target && (await readColumns(ctx, [target.id])).get(target.id)!;
    const position = column ? await openTaskSlot(ctx, column, input.position) : null;
    const status = (input.status ?? column?.task_status ?? 'todo') as ProjectTaskStatus;
    const row: ProjectTasksTable = {
      workspace_id: ctx.workspaceId,
      id: newId('ptk'),
      project_id: input.project_id,
      number,
      key: `${projectKey}-${number}`,
      board_id: column?.board_id ?? null,
      column_id: column?.id ?? null,
      position,
      title: input.title,
      description: input.description ?? null,
      status,
      priority: (input.priority ?? 'none') as ProjectTasksTable['priority'],
      estimate: input.estimate ?? null,
      labels: JSON.stringify(input.labels ?? []),
      assignee_id: input.assignee_id ?? null,
      // Stored in UTC so the summary's overdue count compares like with like.
      due_at: input.due_at ? new Date(input.due_at).toISOString() : null,
      completed_at: status === 'done' ? ctx.now : null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertProjectTask(ctx.db, row);
    const task = toProjectTask(row);
    ctx.audit({ targetType: 'project_task', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'project_task.created', targetType: 'project_task', targetId: row.id, data: task });
    return { body: { project_task: task }, createdId: row.id };
  },
});

export const listProjectTasksOperation = defineOperation({
  name: 'list_project_tasks',
  module: 'projects',
  scopes: ['projects:read'],
  kind: 'read',
  summary: 'List project tasks',
  description:
    'Lists project tasks, newest first; query matches title, description and key; key filters exactly (e.g. WEB-12). With column_id they come in board order.',
  input: Strict({
    project_id: Type.Optional(Type.String({ minLength: 1 })),
    board_id: Type.Optional(Type.String({ minLength: 1 })),
    column_id: Type.Optional(Type.String({ minLength: 1 })),
    assignee_id: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(taskStatus('backlog, todo and in_progress count as open.')),
    priority: Type.Optional(priority()),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
    key: Type.Optional(Type.String({ pattern: '^[A-Z][A-Z0-9]{1,9}-[0-9]+$' })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/projects/tasks' },
  heavy: heavyFilters({
    indexed: ['project_id', 'board_id', 'column_id', 'assignee_id'],
    scans: ['status', 'priority', 'label'],
  }),
  responseKey: 'project_tasks',
  handler: async (ctx, input) => {
    const filters = input as TaskFilters;
    const page = await listProjectTasks(
      ctx.db,
      ctx.workspaceId,
      filters,
      pageRequest('list_project_tasks', input),
    );
    return { body: listBody('project_tasks', page) };
  },
});
