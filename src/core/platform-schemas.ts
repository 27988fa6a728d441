// Resources of the platform itself (audit events, call events, request records), declared once for the
// operations that return them: get_record_history and get_request.
import { type Static, Type } from '@sinclair/typebox';
import { Nullable, NullableText, RecordId, Resource, Shape, Text, Timestamp } from './resource-schema.ts';

export const AuditEventSchema = Resource('AuditEvent', {
  id: RecordId('aud'),
  request_id: RecordId('req'),
  occurred_at: Timestamp(),
  actor: Shape({
    type: Text('api_key', 'api_key, mcp_token, operator or system.'),
    credential_id: Nullable(RecordId('key')),
    name: Text('Sales assistant'),
    on_behalf_of: Type.Optional(
      NullableText('key_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The credential a system actor acted for.'),
    ),
  }),
  surface: Text('rest'),
  tool: Text('create_contact'),
  action: Text('create'),
  target_type: Text('contact'),
  target_id: RecordId('con'),
  status: Text('success'),
  changed_fields: Type.Array(Type.String(), { examples: [['name', 'email']] }),
  caused_by: Type.Optional(
    NullableText('run_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The run or request that caused this one.'),
  ),
});
export type AuditEvent = Static<typeof AuditEventSchema>;

export const CallEventSchema = Resource('CallEvent', {
  id: RecordId('call'),
  request_id: RecordId('req'),
  occurred_at: Timestamp(),
  kind: Text('api_request', 'api_request or mcp_tool_call (or a worker call).'),
  route: Text('POST /v1/contacts', 'Route template or tool name.'),
  method: Text('POST'),
  credential_id: Nullable(RecordId('key')),
  credential_path: Text('rest/api_key'),
  http_status: Type.Integer({ examples: [201] }),
  error_code: NullableText('validation_failed'),
  duration_ms: Type.Number({ examples: [4] }),
  units: Type.Number({ examples: [1] }),
  billed_units: Type.Number({ examples: [1] }),
  caused_by: Type.Optional(
    NullableText('run_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The run or request that caused this one.'),
  ),
});
export type CallEvent = Static<typeof CallEventSchema>;

export const UsageEventSchema = Shape({
  request_id: RecordId('req'),
  occurred_at: Timestamp(),
  event_type: Text('api_request'),
  route: Text('POST /v1/contacts'),
  method: Text('POST'),
  credential_path: Text('rest/api_key'),
  units: Type.Number({ examples: [1] }),
  billed_units: Type.Number({ examples: [1] }),
});

export const RequestRecordSchema = Resource('RequestRecord', {
  request_id: RecordId('req'),
  call_event: Nullable(CallEventSchema),
  usage_event: Nullable(UsageEventSchema),
  audit_events: Type.Array(AuditEventSchema),
});
