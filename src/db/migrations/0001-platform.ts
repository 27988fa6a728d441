import type { Kysely } from 'kysely';

// Every workspace-owned table starts its primary key and unique constraints with workspace_id, so the
// schema can be distributed by workspace unchanged. installation, workspaces and credentials are
// installation-wide lookups (a token is resolved before its workspace is known).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('installation')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('modules', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('mcp_auth_methods', 'text', (c) => c.notNull())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('credit_units', 'bigint')
    .addColumn('monthly_cap_units', 'bigint')
    .addColumn('entitlements', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();

  await db.schema
    .createTable('credentials')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('token_hash', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addPrimaryKeyConstraint('credentials_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('credentials_token_hash')
    .on('credentials')
    .column('token_hash')
    .unique()
    .execute();
  await db.schema.createIndex('credentials_id').on('credentials').column('id').execute();

  await db.schema
    .createTable('call_events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text')
    .addColumn('credential_path', 'text', (c) => c.notNull())
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('units', 'integer', (c) => c.notNull())
    .addColumn('billed_units', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_events_pk', ['workspace_id', 'id'])
    .execute();
  // Request IDs are unique to one workspace, so one index serves workspace and operator lookups alike.
  await db.schema.createIndex('call_events_request').on('call_events').column('request_id').execute();
  await db.schema
    .createIndex('call_events_occurred')
    .on('call_events')
    .columns(['workspace_id', 'occurred_at'])
    .execute();

  await db.schema
    .createTable('audit_events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_credential_id', 'text')
    .addColumn('actor_name', 'text', (c) => c.notNull())
    .addColumn('surface', 'text', (c) => c.notNull())
    .addColumn('tool', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('changed_fields', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_events_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_events_target')
    .on('audit_events')
    .columns(['workspace_id', 'target_type', 'target_id', 'id'])
    .execute();
  await db.schema.createIndex('audit_events_request').on('audit_events').column('request_id').execute();

  await db.schema
    .createTable('outbox_events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text')
    .addColumn('target_id', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addPrimaryKeyConstraint('outbox_events_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('outbox_events_unpublished')
    .on('outbox_events')
    .columns(['published_at', 'id'])
    .execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('resource_type', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['workspace_id', 'resource_type', 'key'])
    .execute();
  await db.schema
    .createIndex('idempotency_keys_created')
    .on('idempotency_keys')
    .column('created_at')
    .execute();

  await db.schema
    .createTable('billing_usage')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('period', 'text', (c) => c.notNull())
    .addColumn('billed_units', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_usage_pk', ['workspace_id', 'period'])
    .execute();
}
