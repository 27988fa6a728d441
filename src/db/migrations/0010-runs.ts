import type { Kysely } from 'kysely';

// Long-running work as a resource (src/core/runs.ts): one row per run, written with its job in one
// transaction. Calls a worker makes on a caller's behalf record that caller and the run that caused them.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('runs')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('run_type', 'text', (c) => c.notNull())
    .addColumn('module', 'text', (c) => c.notNull())
    .addColumn('operation', 'text', (c) => c.notNull())
    .addColumn('job_name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('input_summary', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('queued_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('result_ref', 'text')
    .addColumn('request_id', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('runs_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema.createIndex('runs_type').on('runs').columns(['workspace_id', 'run_type', 'id']).execute();
  await db.schema
    .createIndex('runs_type_status')
    .on('runs')
    .columns(['workspace_id', 'run_type', 'status', 'id'])
    .execute();

  await db.schema.alterTable('audit_events').addColumn('on_behalf_of', 'text').execute();
  await db.schema.alterTable('audit_events').addColumn('caused_by', 'text').execute();
  await db.schema.alterTable('call_events').addColumn('caused_by', 'text').execute();
}
