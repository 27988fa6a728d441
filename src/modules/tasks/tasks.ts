import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { updateRecord } from '../../core/record-update.ts';
import { checkRelatedRecord } from '../../core/related-record.ts';
import { Strict } from '../../core/schema.ts';
import { type TaskStatus, taskRecord } from './task-records.ts';
import { listTasks } from './task-store.ts';

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
  input: Strict(taskRecord.createInput),
  rest: { method: 'POST', path: '/v1/tasks' },
  responseKey: 'task',
  handler: async (ctx, input) => {
    await checkRelatedRecord(ctx, input);
    const task = await taskRecord.insert(ctx.db, taskRecord.row(ctx, input));
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
    status: taskRecord.patchInput.status,
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
  const { changed, record: task } = await updateRecord(ctx, taskRecord, id, change, {
    apply: ({ row, next }) => {
      if (next.status !== row.status) next.completed_at = next.status === 'completed' ? ctx.now : null;
    },
  });
  if (changed.length === 0) return task;
  const event = changed.includes('status') ? EVENT_FOR_STATUS[task.status] : 'task.updated';
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
  input: Strict({ task_id: taskId, ...taskRecord.patchInput }),
  rest: { method: 'PATCH', path: '/v1/tasks/{task_id}' },
  responseKey: 'task',
  handler: async (ctx, input) => ({ body: { task: await changeTask(ctx, input.task_id, input) } }),
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
    completed_note: taskRecord.patchInput.completed_note,
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
