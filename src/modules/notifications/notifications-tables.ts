export type Channel = 'in_app' | 'web_push' | 'webhook';
export type NotificationStatus = 'pending' | 'delivered' | 'suppressed' | 'read' | 'archived';

export interface NotificationsTable {
  workspace_id: string;
  id: string;
  recipient_id: string;
  title: string;
  body: string | null;
  source_type: string | null;
  source_id: string | null;
  event_type: string | null;
  event_id: string | null;
  rule_id: string | null;
  /** JSON array: the channels it goes to after preferences. */
  channels: string;
  /** JSON array: requested channels a preference disabled. */
  skipped_channels: string;
  status: NotificationStatus;
  metadata: string;
  read_at: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface NotificationPreferencesTable {
  workspace_id: string;
  id: string;
  /** The recipient, or '*' for the workspace-wide default. */
  recipient_key: string;
  channel: Channel;
  /** An event type, or '*' for every event type. */
  event_type: string;
  enabled: number;
  created_at: string;
  updated_at: string;
}

export interface NotificationRulesTable {
  workspace_id: string;
  id: string;
  name: string;
  event_type: string;
  /** JSON array of {field, operator, value}. */
  conditions: string;
  /** JSON array of recipient IDs. */
  recipient_ids: string;
  recipient_field: string | null;
  /** JSON array of channels. */
  channels: string;
  title_template: string;
  body_template: string | null;
  status: 'active' | 'disabled';
  created_at: string;
  updated_at: string;
}

export interface NotificationSubscriptionsTable {
  workspace_id: string;
  id: string;
  recipient_id: string;
  channel: 'web_push' | 'webhook';
  endpoint: string;
  p256dh: string | null;
  auth: string | null;
  /** Webhook signing secret, encrypted. */
  secret: string | null;
  status: 'active' | 'disabled';
  disabled_reason: string | null;
  user_agent: string | null;
  created_at: string;
  updated_at: string;
}

export interface NotificationDeliveriesTable {
  workspace_id: string;
  id: string;
  notification_id: string;
  subscription_id: string;
  channel: 'web_push' | 'webhook';
  status: 'pending' | 'succeeded' | 'failed' | 'canceled';
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  completed_at: string | null;
}

export interface NotificationsTables {
  notifications: NotificationsTable;
  notification_preferences: NotificationPreferencesTable;
  notification_rules: NotificationRulesTable;
  notification_subscriptions: NotificationSubscriptionsTable;
  notification_deliveries: NotificationDeliveriesTable;
}
