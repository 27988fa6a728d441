// The task record, declared once (docs/architecture.md, "Records"): its row, the resource the API returns
// (and the events carry), the mapper and the create and patch inputs derive from it.
import { Type } from '@sinclair/typebox';
import { defineRecord, type RecordOf } from '../../core/define-record.ts';
import { oneOf, text, timestamp } from '../../core/record-fields.ts';
import { Enum } from '../../core/resource-schema.ts';

export const taskStatuses = ['open', 'completed', 'canceled'] as const;
export type TaskStatus = (typeof taskStatuses)[number];

export const taskRecord = defineRecord({
  type: 'task',
  module: 'tasks',
  table: 'tasks',
  prefix: 'tsk',
  title: 'Task',
  collection: '/v1/tasks',
  key: 'task',
  readScope: 'tasks:read',
  fields: {
    title: text({ example: 'Send the renewal quote', min: 1, max: 500 }).input(),
    description: text({ example: 'Annual plan, 25 seats, 10% discount.', max: 20_000 }).nullable().input(),
    // A task is created open; update_task moves it.
    status: oneOf(taskStatuses)
      .default('open')
      .input({ schema: Type.Literal('open') })
      .editable('replace', { schema: Enum(taskStatuses) }),
    due_at: timestamp().nullable().input(),
    assignee_id: text({
      example: 'usr_ada',
      description: 'Your own identifier of the person responsible.',
      min: 1,
      max: 255,
    })
      .nullable()
      .input(),
    related_resource_type: text({ example: 'contact', description: 'Record type of the related record.' })
      .nullable()
      .input({ schema: Enum(['contact', 'company', 'deal', 'support_ticket'] as const) }),
    // Any record type's ID (checkRelatedRecord), so not a ref.
    related_resource_id: text({ example: 'con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V' })
      .nullable()
      .input({ schema: Type.String({ minLength: 1 }) }),
    completed_note: text({ example: 'Quote sent and accepted.', max: 20_000 })
      .nullable()
      .editable('replace', { nullable: false }),
    completed_at: timestamp().nullable(),
  },
});
export type Task = RecordOf<typeof taskRecord>;
