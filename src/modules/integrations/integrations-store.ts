import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { IntegrationEventType, WebhookDelivery, WebhookEndpoint } from './integration-schemas.ts';
import type {
  IntegrationEventTypesTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from './integrations-tables.ts';

export function toEventType(row: IntegrationEventTypesTable): IntegrationEventType {
  return {
    id: row.id,
    key: row.key,
    description: row.description,
    source: 'custom' as const,
    schema: row.schema ? (JSON.parse(row.schema) as Record<string, unknown>) : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The API resource of an endpoint: never the secret, which only create and rotation return. */
export function toEndpoint(row: WebhookEndpointsTable): WebhookEndpoint {
  return {
    id: row.id,
    url: row.url,
    description: row.description,
    event_types: JSON.parse(row.event_types) as string[],
    status: row.status,
    disabled_reason: row.disabled_reason,
    previous_secret_expires_at: row.previous_secret_expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toAttempt(row: WebhookAttemptsTable) {
  return {
    attempt: row.attempt,
    attempted_at: row.attempted_at,
    status_code: row.status_code,
    duration_ms: row.duration_ms,
    error: row.error,
    response_excerpt: row.response_excerpt,
    next_attempt_at: row.next_attempt_at,
  };
}

export function toDelivery(row: WebhookDeliveriesTable, attempts: WebhookAttemptsTable[]): WebhookDelivery {
  return {
    id: row.id,
    webhook_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempt_count: row.attempt_count,
    next_attempt_at: row.next_attempt_at,
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    payload: JSON.parse(row.payload) as Record<string, unknown>,
    attempts: attempts.map(toAttempt),
    created_at: row.created_at,
    updated_at: row.updated_at,
    completed_at: row.completed_at,
  };
}

export const insertEndpoint = (db: Kysely<DB>, row: WebhookEndpointsTable) =>
  insertRows(db, 'webhook_endpoints', row);
export const insertDelivery = (db: Kysely<DB>, row: WebhookDeliveriesTable) =>
  insertRows(db, 'webhook_deliveries', row);
export const insertEventType = (db: Kysely<DB>, row: IntegrationEventTypesTable) =>
  insertRows(db, 'integration_event_types', row);

export function updateEndpointRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<WebhookEndpointsTable>,
) {
  return updateRow(db, 'webhook_endpoints', workspaceId, id, changes);
}

export function listEndpointRows(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status as WebhookEndpointsTable['status']);
  return fetchPage(query, page);
}

/** An endpoint's deliveries, newest first, with their attempts. */
export async function listEndpointDeliveries(
  db: Kysely<DB>,
  workspaceId: string,
  endpointId: string,
  filters: { status?: string; event_type?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('endpoint_id', '=', endpointId);
  if (filters.status) query = query.where('status', '=', filters.status as WebhookDeliveriesTable['status']);
  if (filters.event_type) query = query.where('event_type', '=', filters.event_type);
  const result = await fetchPage(query, page);
  const attempts = await attemptsOf(
    db,
    workspaceId,
    result.items.map((row) => row.id),
  );
  return { ...result, items: result.items.map((row) => toDelivery(row, attempts.get(row.id) ?? [])) };
}

/** The workspace's custom event types with a key after `after`, in key order. */
export function customEventTypesAfter(db: Kysely<DB>, workspaceId: string, after: string) {
  return db
    .selectFrom('integration_event_types')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '>', after)
    .orderBy('key')
    .execute();
}

/** Of these keys, those the workspace registered as custom event types. */
export async function customEventTypeKeys(
  db: Kysely<DB>,
  workspaceId: string,
  keys: string[],
): Promise<Set<string>> {
  if (!keys.length) return new Set();
  const rows = await db
    .selectFrom('integration_event_types')
    .select('key')
    .where('workspace_id', '=', workspaceId)
    .where('key', 'in', keys)
    .execute();
  return new Set(rows.map((row) => row.key));
}

export function findEventTypeByKey(db: Kysely<DB>, workspaceId: string, key: string) {
  return db
    .selectFrom('integration_event_types')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();
}

export function findEndpoint(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'webhook_endpoints', workspaceId, id);
}

/** Attempts of several deliveries in one query, oldest first per delivery. */
export async function attemptsOf(db: Kysely<DB>, workspaceId: string, deliveryIds: string[]) {
  const byDelivery = new Map<string, WebhookAttemptsTable[]>();
  if (deliveryIds.length === 0) return byDelivery;
  const rows = await db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('delivery_id', 'in', deliveryIds)
    .orderBy('attempt')
    .execute();
  for (const row of rows) byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), row]);
  return byDelivery;
}

export async function loadDelivery(db: Kysely<DB>, workspaceId: string, id: string) {
  const row = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
  return toDelivery(row, (await attemptsOf(db, workspaceId, [id])).get(id) ?? []);
}

/** Whether an endpoint subscribed with these event types receives an event of this type. */
export function subscribes(eventTypes: string[], eventType: string): boolean {
  return eventTypes.includes('*') || eventTypes.includes(eventType);
}
