export interface IntegrationEventTypesTable {
  workspace_id: string;
  id: string;
  key: string;
  description: string;
  /** JSON Schema of the payload, as JSON text. */
  schema: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookEndpointsTable {
  workspace_id: string;
  id: string;
  url: string;
  description: string | null;
  /** JSON array of event type keys, or ["*"]. */
  event_types: string;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  /** Signing secret, encrypted (see secrets.ts). */
  secret: string;
  /** The secret before the last rotation, encrypted; it keeps signing until previous_secret_expires_at. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  created_at: string;
  updated_at: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'canceled';

export interface WebhookDeliveriesTable {
  workspace_id: string;
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  /** The exact JSON body sent on every attempt (the signature covers it). */
  payload: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface WebhookAttemptsTable {
  workspace_id: string;
  id: string;
  delivery_id: string;
  attempt: number;
  attempted_at: string;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
}

export interface IntegrationsTables {
  integration_event_types: IntegrationEventTypesTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
