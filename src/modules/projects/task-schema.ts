import { Type } from '@sinclair/typebox';
import { Enum } from '../../core/resource-schema.ts';

export const TASK_STATUSES = ['backlog', 'todo', 'in_progress', 'done', 'canceled'] as const;
export const taskStatus = Enum(TASK_STATUSES, {
  description: 'backlog, todo, in_progress, done or canceled; backlog, todo and in_progress count as open.',
});
export const priority = Enum(['none', 'low', 'medium', 'high', 'urgent'] as const, {
  description: 'none (default), low, medium, high or urgent.',
});
export const taskFields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.String({ maxLength: 20_000 }),
  assignee_id: Type.String({ minLength: 1, maxLength: 255, description: 'User or agent ID.' }),
  estimate: Type.Integer({ minimum: 0, maximum: 10_000, description: 'Estimate in points (integer).' }),
  labels: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
    maxItems: 20,
    uniqueItems: true,
    description: 'Up to 20 distinct labels; each write replaces the whole list.',
  }),
  due_at: Type.String({ format: 'date-time', description: 'ISO 8601 date-time with offset.' }),
  board_id: Type.String({ minLength: 1, description: "Board of the task's project (pbd_...)." }),
  column_id: Type.String({ minLength: 1, description: 'Column of that board (pbc_...).' }),
  position: Type.Integer({
    minimum: 0,
    description: '0-based place in the column; larger values put the task last. Default: last.',
  }),
};
