import type { Kysely } from 'kysely';

// Scheduled artifacts of Custom BI (bi/schedule-tables.ts). The key starts with workspace_id; the scheduler's
// sweep looks across workspaces for due rows, hence an index on (status, next_run_at) like webhook deliveries.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bi_scheduled_artifacts')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('cadence', 'text', (c) => c.notNull())
    .addColumn('minute', 'integer', (c) => c.notNull())
    .addColumn('hour', 'integer')
    .addColumn('weekday', 'text')
    .addColumn('day_of_month', 'text')
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('next_run_at', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('last_run_id', 'text')
    .addColumn('owner_credential_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('bi_scheduled_artifacts_pk', ['workspace_id', 'id'])
    .execute();
  // The list filters (status, target).
  await db.schema
    .createIndex('bi_scheduled_artifacts_status')
    .on('bi_scheduled_artifacts')
    .columns(['workspace_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_scheduled_artifacts_target')
    .on('bi_scheduled_artifacts')
    .columns(['workspace_id', 'target_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_scheduled_artifacts_due')
    .on('bi_scheduled_artifacts')
    .columns(['status', 'next_run_at'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bi_scheduled_artifacts').execute();
}
