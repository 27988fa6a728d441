import { Type } from '@sinclair/typebox';
import type { ModuleDefinition } from '../../core/module.ts';
import { deliverJob, deliverySweep, webhookConsumer } from './delivery-worker.ts';
import { eventTypeRecord, listEventTypes, registerEventType } from './event-types.ts';
import { IntegrationEventTypeSchema, WebhookEndpointSchema } from './integration-schemas.ts';
import type { IntegrationsTables } from './integrations-tables.ts';
import { listDeliveries, sendTestEvent } from './webhook-deliveries.ts';
import { createEndpoint, endpointRecord, listEndpoints, updateEndpoint } from './webhook-endpoints.ts';

const identity = { name: 'integrations', scopes: ['integrations:read', 'integrations:write'] } as const;

export const integrationsModule: ModuleDefinition<typeof identity, IntegrationsTables> = {
  ...identity,
  operations: [
    listEventTypes,
    registerEventType,
    createEndpoint,
    listEndpoints,
    updateEndpoint,
    sendTestEvent,
    listDeliveries,
  ],
  recordTypes: [eventTypeRecord, endpointRecord],
  events: [
    {
      name: 'webhook.test',
      description:
        'A test event sent by send_test_webhook_event to one endpoint only; data names the endpoint.',
      schema: Type.Object(
        { webhook_id: Type.String(), message: Type.String() },
        { additionalProperties: false },
      ),
    },
    {
      name: 'webhook_endpoint.created',
      description: 'A webhook endpoint was created; data is the endpoint (never its secret).',
      schema: WebhookEndpointSchema,
    },
    {
      name: 'webhook_endpoint.updated',
      description:
        'A webhook endpoint changed (url, event types, status or secret rotation); data is the endpoint.',
      schema: WebhookEndpointSchema,
    },
    {
      name: 'integration_event_type.registered',
      description: 'A custom integration event type was registered; data is the event type.',
      schema: IntegrationEventTypeSchema,
    },
  ],
  eventConsumers: [webhookConsumer],
  jobs: [deliverJob],
  periodicTasks: [deliverySweep],
};
