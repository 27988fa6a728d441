import type { Kysely } from 'kysely';

// BI exports (bi/export-tables.ts): one row per export artifact; its status is its run's (runs table), and
// the file is an asset (assets table). Every key starts with workspace_id.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bi_exports')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('query_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('asset_id', 'text')
    .addColumn('row_count', 'bigint')
    .addColumn('size_bytes', 'bigint')
    .addColumn('checksum_sha256', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('bi_exports_pk', ['workspace_id', 'id'])
    .execute();
  // The list filter (the exports of one saved query) and the replay of a start (the export of a run).
  await db.schema
    .createIndex('bi_exports_query')
    .on('bi_exports')
    .columns(['workspace_id', 'query_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_exports_run')
    .on('bi_exports')
    .columns(['workspace_id', 'run_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bi_exports').execute();
}
