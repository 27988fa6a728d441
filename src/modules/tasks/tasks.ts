import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { checkRelatedRecord } from '../../core/related-record.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { TaskSchema } from './task-schemas.ts';
import { findTask, insertTask, listTasks, type TaskStatus, toTask, updateTaskRow } from './task-store.ts';

export const taskRecord = defineRecordType({
  type: 'task',
  module: 'tasks',
  table: 'tasks',
  collection: '/v1/tasks',
  key: 'task',
  readScope: 'tasks:read',
  schema: TaskSchema,
  toResource: toTask,
});

const status = Enum(['open', 'completed', 'canceled'] as const);
const taskId = Type.String({ minLength: 1 });

export const createTask = defineOperation({
  name: 'create_task',
  module: 'tasks',
  scopes: ['tasks:write'],
  kind: 'create',
  creates: 'task',
  summary: 'Create a task',
  description:
    'Creates an open task, optionally assigned (a user or agent ID) and linked to an existing contact, company, deal or support ticket. Emits task.created.',
  input: Strict({
    title: Type.String({ minLength: 1, maxLength: 500 }),
    description: Type.Optional(Type.String({ maxLength: 20_000 })),
    status: Type.Optional(Type.Literal('open')),
    due_at: Type.Optional(Type.String({ format: 'date-time' })),
    assignee_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    related_resource_type: Type.Optional(Enum(['contact', 'company', 'deal', 'support_ticket'] as const)),
    related_resource_id: Type.Optional(Type.String({ minLength: 1 })),
  }),
  rest: { method: 'POST', path: '/v1/tasks' },
  responseKey: 'task',
  handler: async (ctx, input) => {
    await checkRelatedRecord(ctx, input);
    const task = await insertTask(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('tsk'),
      title: input.title,
      description: input.description ?? null,
      status: 'open',
      due_at: input.due_at ?? null,
      assignee_id: input.assignee_id ?? null,
      related_resource_type: input.related_resource_type ?? null,
      related_resource_id: input.related_resource_id ?? null,
      completed_note: null,
      completed_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
    ctx.audit({ targetType: 'task', targetId: task.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'task.created', targetType: 'task', targetId: task.id, data: task });
    return { body: { task }, createdId: task.id };
  },
});

export const listTasksOperation = defineOperation({
  name: 'list_tasks',
  module: 'tasks',
  scopes: ['tasks:read'],
  kind: 'read',
  summary: 'List tasks',
  description: 'Lists tasks, newest first, filtered by status and assignee_id.',
  input: Strict({
    status: Type.Optional(status),
    assignee_id: Type.Optional(Type.String({ minLength: 1 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/tasks' },
  responseKey: 'tasks',
  heavy: heavyFilters({ indexed: ['status', 'assignee_id'] }),
  handler: async (ctx, input) => {
    const page = await listTasks(ctx.db, ctx.workspaceId, input, pageRequest('list_tasks', input));
    return { body: listBody('tasks', page) };
  },
});

const EVENT_FOR_STATUS: Record<TaskStatus, string> = {
  completed: 'task.completed',
  canceled: 'task.canceled',
  open: 'task.reopened',
};

/** Shared by update_task and the deprecated complete_task: one way to change a task. */
async function changeTask(
  ctx: OperationContext,
  id: string,
  change: { status?: TaskStatus; completed_note?: string },
) {
  const row = await findTask(ctx.db, ctx.workspaceId, id);
  if (!row) throw notFound('task');
  const { changes, changed } = diffFields(row, change, ['status', 'completed_note']);
  ctx.audit({ targetType: 'task', targetId: id, changedFields: changed });
  if (changed.length === 0) return toTask(row);
  const set = { ...changes, updated_at: ctx.now };
  if (changes.status) set.completed_at = changes.status === 'completed' ? ctx.now : null;
  await updateTaskRow(ctx.db, ctx.workspaceId, id, set);
  const task = toTask({ ...row, ...set });
  const event = changes.status ? EVENT_FOR_STATUS[changes.status] : 'task.updated';
  ctx.emit({ name: event, targetType: 'task', targetId: id, data: task });
  return task;
}

export const updateTask = defineOperation({
  name: 'update_task',
  module: 'tasks',
  scopes: ['tasks:write'],
  kind: 'update',
  summary: 'Update a task',
  description:
    "Sets a task's status (any direction: completes, cancels or reopens it) and/or completed_note. Emits task.completed, task.canceled, task.reopened or task.updated.",
  input: Strict({
    task_id: taskId,
    status: Type.Optional(status),
    completed_note: Type.Optional(Type.String({ maxLength: 20_000 })),
  }),
  rest: { method: 'PATCH', path: '/v1/tasks/{task_id}' },
  responseKey: 'task',
  handler: async (ctx, input) => {
    requireSomeField(input, ['status', 'completed_note']);
    return { body: { task: await changeTask(ctx, input.task_id, input) } };
  },
});

export const completeTask = defineOperation({
  name: 'complete_task',
  module: 'tasks',
  scopes: ['tasks:write'],
  kind: 'update',
  deprecated: { replacedBy: 'update_task' },
  summary: 'Complete a task (deprecated)',
  description:
    'Same as update_task with status completed: marks a task completed, storing completed_note if given. Emits task.completed.',
  input: Strict({
    task_id: taskId,
    completed_note: Type.Optional(Type.String({ maxLength: 20_000 })),
  }),
  rest: { method: 'PATCH', path: '/v1/tasks/{task_id}' },
  responseKey: 'task',
  handler: async (ctx, input) => ({
    body: {
      task: await changeTask(ctx, input.task_id, {
        status: 'completed',
        completed_note: input.completed_note,
      }),
    },
  }),
});
