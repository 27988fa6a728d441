// The activity resource as the API returns it, declared once (record type, responses, MCP, OpenAPI).
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
  timestamps,
} from '../../core/resource-schema.ts';

export const ActivitySchema = Resource('Activity', {
  id: RecordId('act'),
  type: Enum(['note', 'call', 'email', 'meeting', 'agent_action'] as const),
  summary: Text('Call with Ada about the renewal'),
  body: NullableText('She wants the annual plan; quote by Monday.'),
  related_resource_type: NullableText('contact'),
  related_resource_id: Nullable(Type.String({ examples: ['con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'] })),
  occurred_at: Timestamp(),
  actor: Shape({
    type: Text('api_key', 'The kind of credential that logged it.'),
    credential_id: Nullable(RecordId('key')),
  }),
  ...timestamps,
});
export type Activity = Static<typeof ActivitySchema>;
