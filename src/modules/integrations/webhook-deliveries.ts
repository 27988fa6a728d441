import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { Enum } from '../../core/resource-schema.ts';
import { oneRecordBody, pageBody } from '../../core/response-schema.ts';
import { Strict } from '../../core/schema.ts';
import { attemptDelivery, eventBody } from './delivery-worker.ts';
import { WebhookDeliverySchema } from './integration-schemas.ts';
import {
  findEndpoint,
  insertDelivery,
  listEndpointDeliveries,
  loadDelivery,
  toDelivery,
} from './integrations-store.ts';
import type { WebhookDeliveriesTable } from './integrations-tables.ts';

const webhookId = Type.String({ minLength: 1 });
// The worker's sweep must not pick up a test delivery while the call itself is sending it.
const TEST_SEND_LEASE_MS = 60_000;

export const listDeliveries = defineOperation({
  name: 'list_webhook_deliveries',
  module: 'integrations',
  scopes: ['integrations:read'],
  kind: 'read',
  summary: 'List the deliveries of a webhook endpoint',
  description:
    "Lists an endpoint's deliveries, newest first, with their attempts (time, status code, duration, error, response excerpt, next attempt), to debug a receiver.",
  input: Strict({
    webhook_id: webhookId,
    status: Type.Optional(Enum(['pending', 'succeeded', 'failed', 'canceled'] as const)),
    event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/webhooks/{webhook_id}/deliveries' },
  responseKey: 'deliveries',
  response: pageBody('deliveries', WebhookDeliverySchema),
  heavy: heavyFilters({ scans: ['status', 'event_type'] }),
  handler: async (ctx, input) => {
    if (!(await findEndpoint(ctx.db, ctx.workspaceId, input.webhook_id))) throw notFound('webhook endpoint');
    const request = pageRequest('list_webhook_deliveries', input);
    const page = await listEndpointDeliveries(ctx.db, ctx.workspaceId, input.webhook_id, input, request);
    return { body: listBody('deliveries', page) };
  },
});

export const sendTestEvent = defineOperation({
  name: 'send_test_webhook_event',
  module: 'integrations',
  scopes: ['integrations:write'],
  kind: 'action',
  summary: 'Send a test event to a webhook endpoint',
  description:
    'Sends a webhook.test event to one endpoint now (even a disabled one) and returns the delivery with its first attempt (status code, duration, error, response excerpt); a failure is retried on the normal schedule. Use it to check a receiver.',
  input: Strict({ webhook_id: webhookId }),
  rest: { method: 'POST', path: '/v1/webhooks/{webhook_id}/test' },
  responseKey: 'delivery',
  response: oneRecordBody('delivery', WebhookDeliverySchema),
  handler: async (ctx, input) => {
    const endpoint = await findEndpoint(ctx.db, ctx.workspaceId, input.webhook_id);
    if (!endpoint) throw notFound('webhook endpoint');
    const eventId = newId('evt');
    const row: WebhookDeliveriesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('whd'),
      endpoint_id: endpoint.id,
      event_id: eventId,
      event_type: 'webhook.test',
      payload: eventBody({
        id: eventId,
        name: 'webhook.test',
        occurred_at: ctx.now,
        workspace_id: ctx.workspaceId,
        data: { webhook_id: endpoint.id, message: 'A test event sent by send_test_webhook_event.' },
      }),
      status: 'pending',
      attempt_count: 0,
      next_attempt_at: new Date(Date.parse(ctx.now) + TEST_SEND_LEASE_MS).toISOString(),
      last_status_code: null,
      last_error: null,
      created_at: ctx.now,
      updated_at: ctx.now,
      completed_at: null,
    };
    await insertDelivery(ctx.db, row);
    ctx.audit({ targetType: 'webhook_delivery', targetId: row.id, action: 'send_test', changedFields: [] });
    const env = { config: ctx.config, clock: ctx.clock };
    return {
      body: { delivery: toDelivery(row, []) },
      // The request goes out after the commit: a slow receiver must not hold the database.
      afterCommit: async (db) => {
        await attemptDelivery({ ...env, db }, row.workspace_id, row.id, { force: true });
        return { delivery: await loadDelivery(db, row.workspace_id, row.id) };
      },
    };
  },
});
