import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { pageBody } from '../../core/response-schema.ts';
import { Strict } from '../../core/schema.ts';
import { newSigningSecret, openSecret, sealSecret } from '../integrations/secrets.ts';
import { checkUrl } from '../integrations/webhook-endpoints.ts';
import { NewNotificationSubscriptionSchema, NotificationSubscriptionSchema } from './notification-schemas.ts';
import { findRow, toSubscription } from './notification-store.ts';
import { recipientId } from './notifications.ts';
import type { NotificationSubscriptionsTable } from './notifications-tables.ts';
import { vapidKeys } from './push-delivery.ts';
import {
  insertSubscription,
  subscriptionsPage,
  subscriptionWithEndpoint,
  updateSubscriptionRow,
} from './settings-store.ts';

export const subscriptionRecord = defineRecordType({
  type: 'notification_subscription',
  module: 'notifications',
  table: 'notification_subscriptions',
  collection: '/v1/notifications/subscriptions',
  key: 'subscription',
  readScope: 'notifications:read',
  schema: NotificationSubscriptionSchema,
  toResource: toSubscription,
});

const subscriptionChannel = Enum(['web_push', 'webhook'] as const);
const status = Enum(['active', 'disabled'] as const);
const keys = Strict(
  {
    p256dh: Type.String({
      minLength: 1,
      maxLength: 200,
    }),
    auth: Type.String({
      minLength: 1,
      maxLength: 100,
    }),
  },
  { description: 'PushSubscription.toJSON().keys; required for web_push.' },
);

function checkKeys(value: { p256dh: string; auth: string } | undefined): void {
  if (!value) throw validationFailed([{ field: 'keys', message: 'is required for web_push' }]);
  const p256dh = Buffer.from(value.p256dh, 'base64url');
  if (p256dh.length !== 65 || p256dh[0] !== 4)
    throw validationFailed([{ field: 'keys.p256dh', message: 'must be an uncompressed P-256 public key' }]);
  if (Buffer.from(value.auth, 'base64url').length !== 16)
    throw validationFailed([{ field: 'keys.auth', message: 'must be 16 bytes' }]);
}

export const listSubscriptions = defineOperation({
  name: 'list_notification_subscriptions',
  module: 'notifications',
  scopes: ['notifications:read'],
  kind: 'read',
  summary: 'List notification subscriptions',
  description:
    'Lists delivery subscriptions, newest first (a push endpoint that answered 404 or 410 is disabled), with vapid_public_key, the applicationServerKey browsers subscribe to web push with.',
  input: Strict({
    recipient_id: Type.Optional(recipientId),
    channel: Type.Optional(subscriptionChannel),
    status: Type.Optional(status),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/notifications/subscriptions' },
  responseKey: 'subscriptions',
  response: Type.Composite(
    [
      pageBody('subscriptions', NotificationSubscriptionSchema),
      Type.Object({
        vapid_public_key: Type.String({
          description: 'The VAPID public key browsers subscribe with (base64url).',
        }),
      }),
    ],
    { additionalProperties: false },
  ),
  handler: async (ctx, input) => {
    const request = pageRequest('list_notification_subscriptions', input);
    const body = listBody('subscriptions', await subscriptionsPage(ctx.db, ctx.workspaceId, input, request));
    return { body: { ...body, vapid_public_key: (await vapidKeys(ctx.db)).publicKey } };
  },
});

export const createSubscription = defineOperation({
  name: 'create_notification_subscription',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'create',
  example: {
    keys: {
      p256dh: 'BAEr-O5br46eslKNxjXdVGcfHjtQO3JY9-hUlinhTYc8hb7_Av3wz45mWsBUluZuuwcyQQTRshSlCOPhRq2rktM',
      auth: 'ZxZBcRfrXW8x1B7qXwmmLw',
    },
  },
  creates: 'notification_subscription',
  summary: 'Create a notification subscription',
  description:
    "Routes a recipient's notifications to a browser (web_push: the PushSubscription endpoint and keys) or a URL (webhook: signed POSTs; the response carries the secret once). Endpoints must be public http(s); one per channel and endpoint. Emits notification_subscription.created.",
  input: Strict({
    recipient_id: recipientId,
    channel: subscriptionChannel,
    endpoint: Type.String({
      format: 'uri',
      minLength: 1,
      maxLength: 2048,
    }),
    keys: Type.Optional(keys),
    user_agent: Type.Optional(Type.String({ maxLength: 500 })),
  }),
  rest: { method: 'POST', path: '/v1/notifications/subscriptions' },
  responseKey: 'subscription',
  response: Type.Object({ subscription: NewNotificationSubscriptionSchema }, { additionalProperties: false }),
  replay: async (ctx, record) => {
    const row = (await findRow(ctx.db, 'notification_subscriptions', ctx.workspaceId, String(record.id)))!;
    return {
      subscription: row.secret ? { ...record, secret: await openSecret(ctx.db, row.secret) } : record,
    };
  },
  handler: async (ctx, input) => {
    if (input.channel === 'web_push') checkKeys(input.keys);
    else if (input.keys) throw validationFailed([{ field: 'keys', message: 'applies to web_push only' }]);
    await checkUrl(ctx, input.endpoint, 'endpoint');
    const existing = await subscriptionWithEndpoint(ctx.db, ctx.workspaceId, input.channel, input.endpoint);
    if (existing)
      throw validationFailed([{ field: 'endpoint', message: `is already subscribed (${existing.id})` }]);
    const secret = input.channel === 'webhook' ? newSigningSecret() : undefined;
    const row: NotificationSubscriptionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('nsub'),
      recipient_id: input.recipient_id,
      channel: input.channel,
      endpoint: input.endpoint,
      p256dh: input.keys?.p256dh ?? null,
      auth: input.keys?.auth ?? null,
      secret: secret ? await sealSecret(ctx.db, secret) : null,
      status: 'active',
      disabled_reason: null,
      user_agent: input.user_agent ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertSubscription(ctx.db, row);
    const subscription = toSubscription(row);
    ctx.audit({
      targetType: 'notification_subscription',
      targetId: row.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'notification_subscription.created',
      targetType: 'notification_subscription',
      targetId: row.id,
      data: subscription,
    });
    return { body: { subscription: secret ? { ...subscription, secret } : subscription }, createdId: row.id };
  },
});

export const updateSubscription = defineOperation({
  name: 'update_notification_subscription',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'update',
  summary: 'Update a notification subscription',
  description:
    "Disables or re-enables a subscription, or replaces a web_push subscription's keys (browsers rotate them) or user_agent label. Emits notification_subscription.updated.",
  input: Strict({
    subscription_id: Type.String({ minLength: 1 }),
    status: Type.Optional(status),
    keys: Type.Optional(keys),
    user_agent: Type.Optional(Type.String({ maxLength: 500 })),
  }),
  rest: { method: 'PATCH', path: '/v1/notifications/subscriptions/{subscription_id}' },
  responseKey: 'subscription',
  handler: async (ctx, input) => {
    requireSomeField(input, ['status', 'keys', 'user_agent']);
    const row = await findRow(ctx.db, 'notification_subscriptions', ctx.workspaceId, input.subscription_id);
    if (!row) throw notFound('notification subscription');
    if (input.keys !== undefined) {
      if (row.channel !== 'web_push')
        throw validationFailed([{ field: 'keys', message: 'applies to web_push only' }]);
      checkKeys(input.keys);
    }
    const proposed = { ...input, p256dh: input.keys?.p256dh, auth: input.keys?.auth };
    const { changes, changed } = diffFields(row, proposed, ['status', 'p256dh', 'auth', 'user_agent']);
    ctx.audit({ targetType: 'notification_subscription', targetId: row.id, changedFields: changed });
    if (changed.length === 0) return { body: { subscription: toSubscription(row) } };
    const set: Partial<NotificationSubscriptionsTable> = { ...changes, updated_at: ctx.now };
    if (changes.status !== undefined)
      set.disabled_reason = changes.status === 'disabled' ? 'disabled by a user' : null;
    await updateSubscriptionRow(ctx.db, ctx.workspaceId, row.id, set);
    const subscription = toSubscription({ ...row, ...set });
    ctx.emit({
      name: 'notification_subscription.updated',
      targetType: 'notification_subscription',
      targetId: row.id,
      data: subscription,
    });
    return { body: { subscription } };
  },
});
