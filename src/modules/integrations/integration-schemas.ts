// The integrations resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
  timestamps,
} from '../../core/resource-schema.ts';
import { MapOf } from '../../core/schema.ts';

const jsonSchema = Nullable(
  MapOf(Type.Unknown(), {
    description: 'JSON Schema of the event data.',
    examples: [{ type: 'object', properties: { order_id: { type: 'string' } } }],
  }),
);

export const IntegrationEventTypeSchema = Resource('IntegrationEventType', {
  id: RecordId('iet'),
  key: Text('order.shipped'),
  description: Text('An order left the warehouse.'),
  source: Type.Literal('custom'),
  schema: jsonSchema,
  ...timestamps,
});
export type IntegrationEventType = Static<typeof IntegrationEventTypeSchema>;

/** A domain event the service itself emits, as list_integration_event_types shows it. */
export const BuiltinEventTypeSchema = Resource('BuiltinEventType', {
  key: Text('contact.created'),
  description: Text('A contact was created; data is the contact.'),
  source: Type.Literal('builtin'),
  schema: jsonSchema,
});

const endpointProperties = {
  id: RecordId('whe'),
  url: Text('https://hooks.example.com/wos'),
  description: NullableText('Order system'),
  event_types: Type.Array(Type.String(), { examples: [['contact.created', 'deal.stage_changed']] }),
  status: Enum(['active', 'disabled'] as const),
  disabled_reason: NullableText('disabled after 9 failed deliveries'),
  previous_secret_expires_at: NullableTimestamp('Until then deliveries are also signed with the old secret.'),
  ...timestamps,
};
export const WebhookEndpointSchema = Resource('WebhookEndpoint', endpointProperties);
export type WebhookEndpoint = Static<typeof WebhookEndpointSchema>;

/** The endpoint as create and a secret rotation return it: with its signing secret, shown only there. */
export const WebhookEndpointWithSecretSchema = Resource('WebhookEndpointWithSecret', {
  ...endpointProperties,
  secret: Type.Optional(
    Text('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'The signing secret (create, rotation).'),
  ),
});

export const WebhookDeliverySchema = Resource('WebhookDelivery', {
  id: RecordId('whd'),
  webhook_id: RecordId('whe'),
  event_id: RecordId('evt'),
  event_type: Text('contact.created'),
  status: Enum(['pending', 'succeeded', 'failed', 'canceled'] as const),
  attempt_count: Type.Integer({ examples: [1] }),
  next_attempt_at: NullableTimestamp(),
  last_status_code: Nullable(Type.Integer({ examples: [200] })),
  last_error: NullableText('timeout after 10000 ms'),
  payload: MapOf(Type.Unknown(), {
    description: 'The event as delivered: {id, type, timestamp, data}.',
    examples: [{ id: 'evt_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', type: 'contact.created', data: {} }],
  }),
  attempts: Type.Array(
    Shape({
      attempt: Type.Integer({ examples: [1] }),
      attempted_at: Timestamp(),
      status_code: Nullable(Type.Integer({ examples: [200] })),
      duration_ms: Type.Number({ examples: [84] }),
      error: NullableText('connection refused'),
      response_excerpt: NullableText('ok'),
      next_attempt_at: NullableTimestamp(),
    }),
  ),
  ...timestamps,
  completed_at: NullableTimestamp(),
});
export type WebhookDelivery = Static<typeof WebhookDeliverySchema>;
