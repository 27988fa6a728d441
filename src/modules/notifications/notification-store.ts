// Notification creation shared by create_notification and the rule consumer: preferences decide the
// channels, active subscriptions of those channels get one pending delivery each.
import type { Kysely } from 'kysely';
import { newId } from '../../core/ids.ts';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type {
  Notification,
  NotificationPreference,
  NotificationRule,
  NotificationSubscription,
} from './notification-schemas.ts';
import type {
  Channel,
  NotificationDeliveriesTable,
  NotificationPreferencesTable,
  NotificationRulesTable,
  NotificationSubscriptionsTable,
  NotificationsTable,
} from './notifications-tables.ts';

export const CHANNELS: Channel[] = ['in_app', 'web_push', 'webhook'];

export function toNotification(row: NotificationsTable): Notification {
  return {
    id: row.id,
    recipient_id: row.recipient_id,
    title: row.title,
    body: row.body,
    source_type: row.source_type,
    source_id: row.source_id,
    event_type: row.event_type,
    event_id: row.event_id,
    rule_id: row.rule_id,
    channels: JSON.parse(row.channels) as Channel[],
    skipped_channels: JSON.parse(row.skipped_channels) as Channel[],
    status: row.status,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    read_at: row.read_at,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toPreference(row: NotificationPreferencesTable): NotificationPreference {
  return {
    id: row.id,
    recipient_id: row.recipient_key === '*' ? null : row.recipient_key,
    channel: row.channel,
    event_type: row.event_type,
    enabled: row.enabled === 1,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toRule(row: NotificationRulesTable): NotificationRule {
  return {
    id: row.id,
    name: row.name,
    event_type: row.event_type,
    conditions: JSON.parse(row.conditions) as RuleCondition[],
    recipient_ids: JSON.parse(row.recipient_ids) as string[],
    recipient_field: row.recipient_field,
    channels: JSON.parse(row.channels) as Channel[],
    title: row.title_template,
    body: row.body_template,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** Never the keys or secret: the endpoint is shown so a user can tell their devices apart. */
export function toSubscription(row: NotificationSubscriptionsTable): NotificationSubscription {
  return {
    id: row.id,
    recipient_id: row.recipient_id,
    channel: row.channel,
    endpoint: row.endpoint,
    status: row.status,
    disabled_reason: row.disabled_reason,
    user_agent: row.user_agent,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export interface RuleCondition {
  field: string;
  operator: 'equals' | 'in';
  value: unknown;
}

export interface NewNotification {
  recipient_id: string;
  title: string;
  body?: string | null;
  source_type?: string | null;
  source_id?: string | null;
  event_type?: string | null;
  event_id?: string | null;
  rule_id?: string | null;
  channels: Channel[];
  metadata?: Record<string, unknown>;
}

/**
 * The enabled subset of the channels for one recipient and event type. The most specific preference
 * wins: recipient and event type, recipient and any event, workspace and event type, workspace and any
 * event; no preference means enabled.
 */
async function enabledChannels(
  db: Kysely<DB>,
  workspaceId: string,
  recipientId: string,
  eventType: string | null,
  channels: Channel[],
) {
  const rows = await db
    .selectFrom('notification_preferences')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('recipient_key', 'in', [recipientId, '*'])
    .where('event_type', 'in', eventType ? [eventType, '*'] : ['*'])
    .where('channel', 'in', channels)
    .execute();
  const rank = (row: NotificationPreferencesTable) =>
    (row.recipient_key === '*' ? 2 : 0) + (row.event_type === '*' ? 1 : 0);
  return channels.filter((channel) => {
    const best = rows.filter((row) => row.channel === channel).sort((a, b) => rank(a) - rank(b))[0];
    return best ? best.enabled === 1 : true;
  });
}

/** Stores a notification and its pending deliveries; the caller audits and emits. */
export async function insertNotification(
  db: Kysely<DB>,
  workspaceId: string,
  input: NewNotification,
  now: string,
) {
  const channels = [...new Set(input.channels)];
  const enabled = await enabledChannels(
    db,
    workspaceId,
    input.recipient_id,
    input.event_type ?? null,
    channels,
  );
  const pushChannels = enabled.filter((c): c is 'web_push' | 'webhook' => c !== 'in_app');
  const subscriptions = pushChannels.length
    ? await db
        .selectFrom('notification_subscriptions')
        .select(['id', 'channel'])
        .where('workspace_id', '=', workspaceId)
        .where('recipient_id', '=', input.recipient_id)
        .where('status', '=', 'active')
        .where('channel', 'in', pushChannels)
        .execute()
    : [];
  const row: NotificationsTable = {
    workspace_id: workspaceId,
    id: newId('ntf'),
    recipient_id: input.recipient_id,
    title: input.title,
    body: input.body ?? null,
    source_type: input.source_type ?? null,
    source_id: input.source_id ?? null,
    event_type: input.event_type ?? null,
    event_id: input.event_id ?? null,
    rule_id: input.rule_id ?? null,
    channels: JSON.stringify(enabled),
    skipped_channels: JSON.stringify(channels.filter((c) => !enabled.includes(c))),
    // In-app is delivered by being stored; otherwise it waits for a push, or nothing can carry it.
    status: enabled.includes('in_app') ? 'delivered' : subscriptions.length ? 'pending' : 'suppressed',
    metadata: JSON.stringify(input.metadata ?? {}),
    read_at: null,
    archived_at: null,
    created_at: now,
    updated_at: now,
  };
  await db.insertInto('notifications').values(row).execute();
  const deliveries: NotificationDeliveriesTable[] = subscriptions.map((subscription) => ({
    workspace_id: workspaceId,
    id: newId('ndl'),
    notification_id: row.id,
    subscription_id: subscription.id,
    channel: subscription.channel,
    status: 'pending',
    attempt_count: 0,
    next_attempt_at: now,
    last_status_code: null,
    last_error: null,
    created_at: now,
    updated_at: now,
    completed_at: null,
  }));
  if (deliveries.length) await db.insertInto('notification_deliveries').values(deliveries).execute();
  return toNotification(row);
}

export { findRow } from '../../db/find-row.ts';

export function updateNotificationRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<NotificationsTable>,
) {
  return updateRow(db, 'notifications', workspaceId, id, changes);
}

export async function notificationsPage(
  db: Kysely<DB>,
  workspaceId: string,
  filters: {
    recipient_id?: string;
    status?: string;
    event_type?: string;
    source_type?: string;
    source_id?: string;
  },
  page: PageRequest,
) {
  let query = db.selectFrom('notifications').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.recipient_id) query = query.where('recipient_id', '=', filters.recipient_id);
  if (filters.status) query = query.where('status', '=', filters.status as NotificationsTable['status']);
  if (filters.event_type) query = query.where('event_type', '=', filters.event_type);
  if (filters.source_type) query = query.where('source_type', '=', filters.source_type);
  if (filters.source_id) query = query.where('source_id', '=', filters.source_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toNotification) };
}
