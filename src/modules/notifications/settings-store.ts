// Queries of the notification settings: preferences, subscriptions and rules.
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import { toPreference, toRule, toSubscription } from './notification-store.ts';
import type {
  Channel,
  NotificationPreferencesTable,
  NotificationRulesTable,
  NotificationSubscriptionsTable,
} from './notifications-tables.ts';

export const insertPreference = (db: Kysely<DB>, row: NotificationPreferencesTable) =>
  insertRows(db, 'notification_preferences', row);
export const insertSubscription = (db: Kysely<DB>, row: NotificationSubscriptionsTable) =>
  insertRows(db, 'notification_subscriptions', row);
export const insertRule = (db: Kysely<DB>, row: NotificationRulesTable) =>
  insertRows(db, 'notification_rules', row);

export function updatePreferenceRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<NotificationPreferencesTable>,
) {
  return updateRow(db, 'notification_preferences', workspaceId, id, changes);
}

export function updateSubscriptionRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<NotificationSubscriptionsTable>,
) {
  return updateRow(db, 'notification_subscriptions', workspaceId, id, changes);
}

export function updateRuleRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<NotificationRulesTable>,
) {
  return updateRow(db, 'notification_rules', workspaceId, id, changes);
}

/** The preference of a (recipient key or '*', channel, event type or '*'), if set. */
export function preferenceByKey(
  db: Kysely<DB>,
  workspaceId: string,
  key: { recipient_key: string; channel: Channel; event_type: string },
) {
  return db
    .selectFrom('notification_preferences')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('recipient_key', '=', key.recipient_key)
    .where('channel', '=', key.channel)
    .where('event_type', '=', key.event_type)
    .executeTakeFirst();
}

export async function preferencesPage(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { recipient_id?: string; workspace_default?: boolean; channel?: Channel; event_type?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('notification_preferences').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.recipient_id) query = query.where('recipient_key', '=', filters.recipient_id);
  if (filters.workspace_default) query = query.where('recipient_key', '=', '*');
  if (filters.channel) query = query.where('channel', '=', filters.channel);
  if (filters.event_type) query = query.where('event_type', '=', filters.event_type);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toPreference) };
}

/** The subscription of a channel to this endpoint, if any. */
export function subscriptionWithEndpoint(
  db: Kysely<DB>,
  workspaceId: string,
  channel: string,
  endpoint: string,
) {
  return db
    .selectFrom('notification_subscriptions')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('channel', '=', channel as NotificationSubscriptionsTable['channel'])
    .where('endpoint', '=', endpoint)
    .executeTakeFirst();
}

export async function subscriptionsPage(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { recipient_id?: string; channel?: string; status?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('notification_subscriptions').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.recipient_id) query = query.where('recipient_id', '=', filters.recipient_id);
  if (filters.channel)
    query = query.where('channel', '=', filters.channel as NotificationSubscriptionsTable['channel']);
  if (filters.status)
    query = query.where('status', '=', filters.status as NotificationSubscriptionsTable['status']);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toSubscription) };
}

export async function rulesPage(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { event_type?: string; status?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('notification_rules').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.event_type) query = query.where('event_type', '=', filters.event_type);
  if (filters.status) query = query.where('status', '=', filters.status as NotificationRulesTable['status']);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toRule) };
}
