import type { Kysely } from 'kysely';
import { findRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type {
  IntegrationEventTypesTable,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhookEndpointsTable,
} from './integrations-tables.ts';
import type { IntegrationEventType, WebhookDelivery, WebhookEndpoint } from './integration-schemas.ts';

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
