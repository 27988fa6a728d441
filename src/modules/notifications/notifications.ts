import { Type } from '@sinclair/typebox';
import { diffFields, inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { FreeFields, Strict } from '../../core/schema.ts';
import { NotificationSchema } from './notification-schemas.ts';
import {
  CHANNELS,
  findRow,
  insertNotification,
  notificationsPage,
  toNotification,
  updateNotificationRow,
} from './notification-store.ts';

export const notificationRecord = defineRecordType({
  type: 'notification',
  module: 'notifications',
  table: 'notifications',
  collection: '/v1/notifications',
  key: 'notification',
  readScope: 'notifications:read',
  schema: NotificationSchema,
  toResource: toNotification,
});

export const channel = Enum(CHANNELS);
export const channels = Type.Array(channel, { minItems: 1, maxItems: 3, uniqueItems: true });
export const recipientId = Type.String({
  minLength: 1,
  maxLength: 255,
});
const status = Enum(['pending', 'delivered', 'suppressed', 'read', 'archived'] as const);

export const createNotification = defineOperation({
  name: 'create_notification',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'create',
  creates: 'notification',
  summary: 'Create a notification',
  description:
    'Notifies one recipient about an existing record (source_type, source_id) on the channels given (default all). Preferences apply: disabled channels are skipped; with none left it is stored suppressed. Each web_push and webhook subscription of the recipient gets a delivery. Emits notification.created.',
  input: Strict({
    recipient_id: recipientId,
    title: Type.String({ minLength: 1, maxLength: 500 }),
    body: Type.Optional(Type.String({ maxLength: 5000 })),
    source_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'E.g. task.' })),
    source_id: Type.Optional(Type.String({ minLength: 1 })),
    event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    channels: Type.Optional(channels),
    metadata: Type.Optional(FreeFields('For the client, e.g. a link or an icon.')),
  }),
  rest: { method: 'POST', path: '/v1/notifications' },
  responseKey: 'notification',
  handler: async (ctx, input) => {
    if ((input.source_type === undefined) !== (input.source_id === undefined)) {
      const missing = input.source_type === undefined ? 'source_type' : 'source_id';
      throw validationFailed([{ field: missing, message: 'is required with the other source field' }]);
    }
    // The source must be a record of this workspace (resource_not_found otherwise).
    if (input.source_type && input.source_id) await ctx.requireRecord(input.source_type, input.source_id);
    const notification = await insertNotification(
      ctx.db,
      ctx.workspaceId,
      { ...input, channels: input.channels ?? CHANNELS },
      ctx.now,
    );
    ctx.audit({ targetType: 'notification', targetId: notification.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'notification.created',
      targetType: 'notification',
      targetId: notification.id,
      data: notification,
    });
    return { body: { notification }, createdId: notification.id };
  },
});

export const listNotifications = defineOperation({
  name: 'list_notifications',
  module: 'notifications',
  scopes: ['notifications:read'],
  kind: 'read',
  summary: 'List notifications',
  description: 'Lists notifications, newest first. An inbox is recipient_id with status delivered.',
  input: Strict({
    recipient_id: Type.Optional(recipientId),
    status: Type.Optional(status),
    event_type: Type.Optional(Type.String({ minLength: 1 })),
    source_type: Type.Optional(Type.String({ minLength: 1 })),
    source_id: Type.Optional(Type.String({ minLength: 1 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/notifications' },
  responseKey: 'notifications',
  heavy: heavyFilters({
    indexed: ['status'],
    scans: ['recipient_id', 'event_type', 'source_type', 'source_id'],
  }),
  handler: async (ctx, input) => {
    const page = await notificationsPage(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_notifications', input),
    );
    return { body: listBody('notifications', page) };
  },
});

export const updateNotification = defineOperation({
  name: 'update_notification',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'update',
  summary: 'Mark a notification read or archived',
  description:
    'The recipient marks a notification read (sets read_at) or archived (leaves the inbox; read_at kept). Emits notification.updated.',
  input: Strict({
    notification_id: Type.String({ minLength: 1 }),
    status: Enum(['read', 'archived'] as const),
  }),
  rest: { method: 'PATCH', path: '/v1/notifications/{notification_id}' },
  responseKey: 'notification',
  handler: async (ctx, input) => {
    const row = await findRow(ctx.db, 'notifications', ctx.workspaceId, input.notification_id);
    if (!row) throw notFound('notification');
    // Reading stamps read_at once; archiving stamps archived_at: both are named among the changed fields.
    const proposed =
      row.status === input.status
        ? {}
        : {
            status: input.status,
            read_at: input.status === 'read' ? (row.read_at ?? ctx.now) : undefined,
            archived_at: input.status === 'archived' ? ctx.now : undefined,
          };
    const { changes, changed } = diffFields(row, proposed, ['status', 'read_at', 'archived_at']);
    ctx.audit({ targetType: 'notification', targetId: row.id, changedFields: changed });
    if (changed.length === 0) return { body: { notification: toNotification(row) } };
    const set = { ...changes, updated_at: ctx.now };
    await updateNotificationRow(ctx.db, ctx.workspaceId, row.id, set);
    const notification = toNotification({ ...row, ...set });
    ctx.emit({
      name: 'notification.updated',
      targetType: 'notification',
      targetId: row.id,
      data: notification,
    });
    return { body: { notification } };
  },
});
