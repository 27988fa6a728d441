import type { ModuleDefinition } from '../../core/module.ts';
import { taskCounts } from './task-store.ts';
import { completeTask, createTask, listTasksOperation, taskRecord, updateTask } from './tasks.ts';

export const tasksModule: ModuleDefinition = {
  name: 'tasks',
  operations: [createTask, listTasksOperation, updateTask, completeTask],
  recordTypes: [taskRecord],
  summary: [
    { module: 'tasks', scope: 'tasks:read', key: 'tasks', compute: async (db, id) => ({ by_status: await taskCounts(db, id) }) },
  ],
};
