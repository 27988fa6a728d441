import type { CreateTableBuilder, Kysely } from 'kysely';

// Integrations (event types, webhook endpoints, deliveries, attempts), analytics governance and
// notifications; plus the SQLite job queue table. Workspace tables key on (workspace_id, id).
type Columns = (t: CreateTableBuilder<any, any>) => CreateTableBuilder<any, any>;

async function table(db: Kysely<any>, name: string, columns: Columns): Promise<void> {
  const builder = db.schema
    .createTable(name)
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull());
  await columns(builder).addPrimaryKeyConstraint(`${name}_pk`, ['workspace_id', 'id']).execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_queue')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('run_at', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('dedup_key', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('job_queue_dedup_key').on('job_queue').column('dedup_key').unique().execute();
  await db.schema.createIndex('job_queue_due').on('job_queue').columns(['state', 'run_at']).execute();

  await table(db, 'integration_event_types', (t) =>
    t
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('schema', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('integration_event_types_key', ['workspace_id', 'key']),
  );

  await table(db, 'webhook_endpoints', (t) =>
    t
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('event_types', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('secret', 'text', (c) => c.notNull())
      .addColumn('previous_secret', 'text')
      .addColumn('previous_secret_expires_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull()),
  );
  await db.schema
    .createIndex('webhook_endpoints_status')
    .on('webhook_endpoints')
    .columns(['workspace_id', 'status', 'id'])
    .execute();

  await table(db, 'webhook_deliveries', (t) =>
    t
      .addColumn('endpoint_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('payload', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempt_count', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text')
      // One delivery per event and endpoint, whatever happens.
      .addUniqueConstraint('webhook_deliveries_event', ['workspace_id', 'endpoint_id', 'event_id']),
  );
  await db.schema
    .createIndex('webhook_deliveries_endpoint')
    .on('webhook_deliveries')
    .columns(['workspace_id', 'endpoint_id', 'id'])
    .execute();
  // The worker's sweep across workspaces: pending deliveries by due time.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();

  await table(db, 'webhook_attempts', (t) =>
    t
      .addColumn('delivery_id', 'text', (c) => c.notNull())
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('attempted_at', 'text', (c) => c.notNull())
      .addColumn('status_code', 'integer')
      .addColumn('duration_ms', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('response_excerpt', 'text')
      .addColumn('next_attempt_at', 'text')
      .addUniqueConstraint('webhook_attempts_number', ['workspace_id', 'delivery_id', 'attempt']),
  );

  await table(db, 'analytics_properties', (t) =>
    t
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('enum_values', 'text')
      .addColumn('pattern', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('analytics_properties_name', ['workspace_id', 'name']),
  );

  await table(db, 'analytics_events', (t) =>
    t
      .addColumn('app', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('properties', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('analytics_events_name', ['workspace_id', 'app', 'name']),
  );

  await table(db, 'analytics_tracking_plans', (t) =>
    t
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('app', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('events', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('archived_at', 'text'),
  );
  await db.schema
    .createIndex('analytics_tracking_plans_app')
    .on('analytics_tracking_plans')
    .columns(['workspace_id', 'app', 'status', 'id'])
    .execute();

  await table(db, 'notifications', (t) =>
    t
      .addColumn('recipient_id', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('body', 'text')
      .addColumn('source_type', 'text')
      .addColumn('source_id', 'text')
      .addColumn('event_type', 'text')
      .addColumn('event_id', 'text')
      .addColumn('rule_id', 'text')
      .addColumn('channels', 'text', (c) => c.notNull())
      .addColumn('skipped_channels', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('metadata', 'text', (c) => c.notNull())
      .addColumn('read_at', 'text')
      .addColumn('archived_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull()),
  );
  await db.schema
    .createIndex('notifications_recipient')
    .on('notifications')
    .columns(['workspace_id', 'recipient_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('notifications_status')
    .on('notifications')
    .columns(['workspace_id', 'status', 'id'])
    .execute();

  await table(db, 'notification_preferences', (t) =>
    t
      .addColumn('recipient_key', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('notification_preferences_key', [
        'workspace_id',
        'recipient_key',
        'channel',
        'event_type',
      ]),
  );

  await table(db, 'notification_rules', (t) =>
    t
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('conditions', 'text', (c) => c.notNull())
      .addColumn('recipient_ids', 'text', (c) => c.notNull())
      .addColumn('recipient_field', 'text')
      .addColumn('channels', 'text', (c) => c.notNull())
      .addColumn('title_template', 'text', (c) => c.notNull())
      .addColumn('body_template', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull()),
  );
  await db.schema
    .createIndex('notification_rules_event')
    .on('notification_rules')
    .columns(['workspace_id', 'event_type', 'status'])
    .execute();

  await table(db, 'notification_subscriptions', (t) =>
    t
      .addColumn('recipient_id', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('endpoint', 'text', (c) => c.notNull())
      .addColumn('p256dh', 'text')
      .addColumn('auth', 'text')
      .addColumn('secret', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('disabled_reason', 'text')
      .addColumn('user_agent', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addUniqueConstraint('notification_subscriptions_endpoint', ['workspace_id', 'channel', 'endpoint']),
  );
  await db.schema
    .createIndex('notification_subscriptions_recipient')
    .on('notification_subscriptions')
    .columns(['workspace_id', 'recipient_id', 'status'])
    .execute();

  await table(db, 'notification_deliveries', (t) =>
    t
      .addColumn('notification_id', 'text', (c) => c.notNull())
      .addColumn('subscription_id', 'text', (c) => c.notNull())
      .addColumn('channel', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('attempt_count', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text')
      .addColumn('last_status_code', 'integer')
      .addColumn('last_error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('completed_at', 'text')
      .addUniqueConstraint('notification_deliveries_once', [
        'workspace_id',
        'notification_id',
        'subscription_id',
      ]),
  );
  await db.schema
    .createIndex('notification_deliveries_due')
    .on('notification_deliveries')
    .columns(['status', 'next_attempt_at'])
    .execute();
}
