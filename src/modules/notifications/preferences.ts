import { Type } from '@sinclair/typebox';
import { diffFields, inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import { NotificationPreferenceSchema } from './notification-schemas.ts';
import { findRow, toPreference } from './notification-store.ts';
import { channel, recipientId } from './notifications.ts';
import type { NotificationPreferencesTable } from './notifications-tables.ts';
import { insertPreference, preferenceByKey, preferencesPage, updatePreferenceRow } from './settings-store.ts';

export const preferenceRecord = defineRecordType({
  type: 'notification_preference',
  module: 'notifications',
  table: 'notification_preferences',
  collection: '/v1/notifications/preferences',
  key: 'preference',
  readScope: 'notifications:read',
  schema: NotificationPreferenceSchema,
  toResource: toPreference,
});

const eventType = Type.String({
  minLength: 1,
  maxLength: 100,
  description: '"*" (default) is every event type.',
});

export const listPreferences = defineOperation({
  name: 'list_notification_preferences',
  module: 'notifications',
  scopes: ['notifications:read'],
  kind: 'read',
  summary: 'List notification preferences',
  description:
    'Lists notification preferences, newest first: per recipient (null: the workspace-wide default), channel and event type, enabled or not.',
  input: Strict({
    recipient_id: Type.Optional(recipientId),
    workspace_default: Type.Optional(Type.Boolean()),
    channel: Type.Optional(channel),
    event_type: Type.Optional(eventType),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/notifications/preferences' },
  responseKey: 'preferences',
  handler: async (ctx, input) => {
    const page = await preferencesPage(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_notification_preferences', input),
    );
    return { body: listBody('preferences', page) };
  },
});

export const upsertPreference = defineOperation({
  name: 'update_notification_preference',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'update',
  summary: 'Set a notification preference',
  description:
    'Enables or disables a channel for a recipient (none: the workspace-wide default) and event type. One preference per recipient, channel and event type: this creates it (201) or changes it (200). The most specific preference wins. Emits notification_preference.updated.',
  input: Strict({
    recipient_id: Type.Optional(recipientId),
    channel,
    event_type: Type.Optional(eventType),
    enabled: Type.Boolean(),
  }),
  rest: { method: 'POST', path: '/v1/notifications/preferences' },
  responseKey: 'preference',
  upsert: true,
  handler: async (ctx, input) => {
    const key = {
      recipient_key: input.recipient_id ?? '*',
      channel: input.channel,
      event_type: input.event_type ?? '*',
    };
    const existing = await preferenceByKey(ctx.db, ctx.workspaceId, key);
    const enabled = input.enabled ? 1 : 0;
    if (existing) {
      const { changes, changed } = diffFields(existing, { enabled }, ['enabled']);
      ctx.audit({
        targetType: 'notification_preference',
        targetId: existing.id,
        action: 'update',
        changedFields: changed,
      });
      if (changed.length === 0) return { body: { preference: toPreference(existing) } };
      await updatePreferenceRow(ctx.db, ctx.workspaceId, existing.id, { ...changes, updated_at: ctx.now });
    }
    const row: NotificationPreferencesTable = existing
      ? { ...existing, enabled, updated_at: ctx.now }
      : {
          workspace_id: ctx.workspaceId,
          id: newId('npref'),
          ...key,
          enabled,
          created_at: ctx.now,
          updated_at: ctx.now,
        };
    if (!existing) {
      await insertPreference(ctx.db, row);
      ctx.audit({
        targetType: 'notification_preference',
        targetId: row.id,
        action: 'create',
        changedFields: inputFields(input),
      });
    }
    const preference = toPreference(row);
    ctx.emit({
      name: 'notification_preference.updated',
      targetType: 'notification_preference',
      targetId: row.id,
      data: preference,
    });
    return { body: { preference }, ...(existing ? {} : { status: 201 }) };
  },
});

export const patchPreference = defineOperation({
  name: 'update_notification_preference_by_id',
  module: 'notifications',
  scopes: ['notifications:write'],
  kind: 'update',
  extension: true,
  summary: 'Enable or disable a notification preference by ID',
  description:
    'Turns an existing preference (list_notification_preferences) on or off by ID; update_notification_preference creates one. Emits notification_preference.updated.',
  input: Strict({
    preference_id: Type.String({ minLength: 1 }),
    enabled: Type.Boolean(),
  }),
  rest: { method: 'PATCH', path: '/v1/notifications/preferences/{preference_id}' },
  responseKey: 'preference',
  handler: async (ctx, input) => {
    const row = await findRow(ctx.db, 'notification_preferences', ctx.workspaceId, input.preference_id);
    if (!row) throw notFound('notification preference');
    const { changes, changed } = diffFields(row, { enabled: input.enabled ? 1 : 0 }, ['enabled']);
    ctx.audit({ targetType: 'notification_preference', targetId: row.id, changedFields: changed });
    if (changed.length === 0) return { body: { preference: toPreference(row) } };
    const set = { ...changes, updated_at: ctx.now };
    await updatePreferenceRow(ctx.db, ctx.workspaceId, row.id, set);
    const preference = toPreference({ ...row, ...set });
    ctx.emit({
      name: 'notification_preference.updated',
      targetType: 'notification_preference',
      targetId: row.id,
      data: preference,
    });
    return { body: { preference } };
  },
});
