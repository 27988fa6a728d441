import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { checkOutboundUrl, OutboundRefused, outboundPolicy } from '../../core/outbound-url.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { oneRecordBody } from '../../core/response-schema.ts';
import { Strict } from '../../core/schema.ts';
import { WebhookEndpointSchema, WebhookEndpointWithSecretSchema } from './integration-schemas.ts';
import {
  customEventTypeKeys,
  findEndpoint,
  insertEndpoint,
  listEndpointRows,
  toEndpoint,
  updateEndpointRow,
} from './integrations-store.ts';
import type { WebhookEndpointsTable } from './integrations-tables.ts';
import { newSigningSecret, openSecret, sealSecret } from './secrets.ts';

const endpointWithSecretBody = oneRecordBody('webhook', WebhookEndpointWithSecretSchema);

export const endpointRecord = defineRecordType({
  type: 'webhook_endpoint',
  module: 'integrations',
  table: 'webhook_endpoints',
  collection: '/v1/webhooks',
  key: 'webhook',
  readScope: 'integrations:read',
  schema: WebhookEndpointSchema,
  toResource: toEndpoint,
});

const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
const status = Enum(['active', 'disabled'] as const);
const url = Type.String({
  format: 'uri',
  minLength: 1,
  maxLength: 2048,
});
const eventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 200,
  uniqueItems: true,
  description: 'Keys from list_integration_event_types, or ["*"] for all.',
});

/** A URL must be http(s), use an allowed port and reach a public address (unless the operator allows private ones). */
export async function checkUrl(ctx: OperationContext, value: string, field: string): Promise<void> {
  try {
    await checkOutboundUrl(value, outboundPolicy(ctx.config));
  } catch (thrown) {
    if (thrown instanceof OutboundRefused) throw validationFailed([{ field, message: thrown.message }]);
    throw thrown;
  }
}

async function checkEventTypes(ctx: OperationContext, keys: string[]): Promise<void> {
  if (keys.includes('*')) {
    if (keys.length > 1)
      throw validationFailed([{ field: 'event_types', message: '"*" must be the only entry' }]);
    return;
  }
  const unknown = keys.filter((key) => !ctx.eventTypes.has(key));
  if (unknown.length === 0) return;
  const known = await customEventTypeKeys(ctx.db, ctx.workspaceId, unknown);
  const missing = unknown.filter((key) => !known.has(key));
  if (missing.length) {
    throw validationFailed(
      missing.map((key) => ({
        field: `event_types[${keys.indexOf(key)}]`,
        message: `${key} is not in the event catalogue`,
      })),
    );
  }
}

export const createEndpoint = defineOperation({
  name: 'create_webhook_endpoint',
  module: 'integrations',
  scopes: ['integrations:write'],
  kind: 'create',
  creates: 'webhook_endpoint',
  summary: 'Create a webhook endpoint',
  description:
    'Registers an http(s) URL, resolving to a public address, that receives signed POSTs (Standard Webhooks) for the listed event types. The response carries the signing secret (whsec_...) once: store it (update_webhook_endpoint rotates it). Emits webhook_endpoint.created.',
  input: Strict({
    url,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    event_types: eventTypes,
    status: Type.Optional(status),
  }),
  rest: { method: 'POST', path: '/v1/webhooks' },
  responseKey: 'webhook',
  response: endpointWithSecretBody,
  // A retried create is answered with the current secret: the client may never have seen the first answer.
  replay: async (ctx, record) => {
    const row = (await findEndpoint(ctx.db, ctx.workspaceId, String(record.id)))!;
    return { webhook: { ...record, secret: await openSecret(ctx.db, row.secret) } };
  },
  handler: async (ctx, input) => {
    await checkUrl(ctx, input.url, 'url');
    await checkEventTypes(ctx, input.event_types);
    const secret = newSigningSecret();
    const row: WebhookEndpointsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('whe'),
      url: input.url,
      description: input.description ?? null,
      event_types: JSON.stringify(input.event_types),
      status: input.status ?? 'active',
      disabled_reason: null,
      secret: await sealSecret(ctx.db, secret),
      previous_secret: null,
      previous_secret_expires_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertEndpoint(ctx.db, row);
    const webhook = toEndpoint(row);
    ctx.audit({ targetType: 'webhook_endpoint', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'webhook_endpoint.created',
      targetType: 'webhook_endpoint',
      targetId: row.id,
      data: webhook,
    });
    return { body: { webhook: { ...webhook, secret } }, createdId: row.id };
  },
});

export const listEndpoints = defineOperation({
  name: 'list_webhook_endpoints',
  module: 'integrations',
  scopes: ['integrations:read'],
  kind: 'read',
  summary: 'List webhook endpoints',
  description:
    'Lists webhook endpoints, newest first, without secrets. An endpoint that answered 410 Gone is disabled with a disabled_reason.',
  input: Strict({ status: Type.Optional(status), ...pageInput }),
  rest: { method: 'GET', path: '/v1/webhooks' },
  responseKey: 'webhooks',
  handler: async (ctx, input) => {
    const page = await listEndpointRows(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_webhook_endpoints', input),
    );
    return { body: listBody('webhooks', { ...page, items: page.items.map(toEndpoint) }) };
  },
});

export const updateEndpoint = defineOperation({
  name: 'update_webhook_endpoint',
  module: 'integrations',
  scopes: ['integrations:write'],
  kind: 'update',
  summary: 'Update a webhook endpoint',
  description:
    "Changes an endpoint's url, description, event_types or status (disabled stops deliveries), and/or rotates its secret (rotate_secret): the response carries the new one, and the old one keeps signing alongside it for 24 hours. Emits webhook_endpoint.updated.",
  input: Strict({
    webhook_id: Type.String({ minLength: 1 }),
    url: Type.Optional(url),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
    event_types: Type.Optional(eventTypes),
    status: Type.Optional(status),
    rotate_secret: Type.Optional(Type.Boolean()),
  }),
  rest: { method: 'PATCH', path: '/v1/webhooks/{webhook_id}' },
  responseKey: 'webhook',
  response: endpointWithSecretBody,
  handler: async (ctx, input) => {
    const { webhook_id: id, rotate_secret: rotate } = input;
    requireSomeField(input, ['url', 'description', 'event_types', 'status', 'rotate_secret']);
    const row = await findEndpoint(ctx.db, ctx.workspaceId, id);
    if (!row) throw notFound('webhook endpoint');
    if (input.url !== undefined) await checkUrl(ctx, input.url, 'url');
    if (input.event_types !== undefined) await checkEventTypes(ctx, input.event_types);
    const proposed = { ...input, event_types: input.event_types && JSON.stringify(input.event_types) };
    const { changes, changed } = diffFields(row, proposed, ['url', 'description', 'event_types', 'status']);
    const set: Partial<WebhookEndpointsTable> = { ...changes, updated_at: ctx.now };
    if (changes.status !== undefined)
      set.disabled_reason = changes.status === 'disabled' ? 'disabled by a user' : null;
    let secret: string | undefined;
    if (rotate) {
      secret = newSigningSecret();
      set.previous_secret = row.secret;
      set.previous_secret_expires_at = new Date(Date.parse(ctx.now) + ROTATION_OVERLAP_MS).toISOString();
      set.secret = await sealSecret(ctx.db, secret);
      changed.push('secret');
    }
    ctx.audit({ targetType: 'webhook_endpoint', targetId: id, changedFields: changed });
    if (changed.length === 0) return { body: { webhook: toEndpoint(row) } };
    await updateEndpointRow(ctx.db, ctx.workspaceId, id, set);
    const webhook = toEndpoint({ ...row, ...set });
    ctx.emit({
      name: 'webhook_endpoint.updated',
      targetType: 'webhook_endpoint',
      targetId: id,
      data: webhook,
    });
    return { body: { webhook: secret ? { ...webhook, secret } : webhook } };
  },
});
