import { Type } from '@sinclair/typebox';
import { Enum } from '../../core/resource-schema.ts';

export const TASK_STATUSES = ['backlog', 'todo', 'in_progress', 'done', 'canceled'] as const;
export const taskStatus = (description?: string) => Enum(TASK_STATUSES, description ? { description } : {});
export const priority = (description?: string) =>
  Enum(['none', 'low', 'medium', 'high', 'urgent'] as const, description ? { description } : {});
export const taskFields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.String({ maxLength: 20_000 }),
  assignee_id: Type.String({ minLength: 1, maxLength: 255 }),
  estimate: Type.Integer({ minimum: 0, maximum: 10_000, description: 'Points.' }),
  labels: Type.Array(Type.String({ minLength: 1, maxLength: 50 }), {
    maxItems: 20,
    uniqueItems: true,
    description: 'Each write replaces the list.',
  }),
  due_at: Type.String({ format: 'date-time' }),
  board_id: Type.String({ minLength: 1 }),
  column_id: Type.String({ minLength: 1 }),
  position: Type.Integer({
    minimum: 0,
    description: '0-based; default last.',
  }),
};
