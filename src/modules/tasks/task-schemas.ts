// The task resource as the API returns it, declared once (record type, responses, MCP, OpenAPI, events).
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';

export const TaskSchema = Resource('Task', {
  id: RecordId('tsk'),
  title: Text('Send the renewal quote'),
  description: NullableText('Annual plan, 25 seats, 10% discount.'),
  status: Enum(['open', 'completed', 'canceled'] as const),
  due_at: NullableTimestamp(),
  assignee_id: NullableText('usr_ada', 'Your own identifier of the person responsible.'),
  related_resource_type: NullableText('contact', 'Record type of the related record.'),
  related_resource_id: Nullable(Type.String({ examples: ['con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'] })),
  completed_note: NullableText('Quote sent and accepted.'),
  completed_at: NullableTimestamp(),
  ...timestamps,
});
export type Task = Static<typeof TaskSchema>;
