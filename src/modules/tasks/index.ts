import type { ModuleDefinition } from '../../core/module.ts';
import { taskRecord } from './task-records.ts';
import { taskCounts } from './task-summary-store.ts';
import type { TaskTables } from './task-tables.ts';
import { completeTask, createTask, listTasksOperation, updateTask } from './tasks.ts';

const identity = { name: 'tasks', scopes: ['tasks:read', 'tasks:write'] } as const;

export const tasksModule: ModuleDefinition<typeof identity, TaskTables> = {
  ...identity,
  operations: [createTask, listTasksOperation, updateTask, completeTask],
  recordTypes: [taskRecord],
  events: [
    { name: 'task.created', description: 'A task was created; data is the task.' },
    { name: 'task.completed', description: 'A task moved to completed; data is the task.' },
    { name: 'task.canceled', description: 'A task moved to canceled; data is the task.' },
    {
      name: 'task.reopened',
      description: 'A completed or canceled task moved back to open; data is the task.',
    },
    { name: 'task.updated', description: 'A task changed without a status change; data is the task.' },
  ],
  summary: [
    {
      module: 'tasks',
      scope: 'tasks:read',
      key: 'tasks',
      compute: async (db, id) => ({ by_status: await taskCounts(db, id) }),
    },
  ],
};
