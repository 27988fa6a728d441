import type { Kysely } from 'kysely';

// Saved BI objects (bi/bi-object-tables.ts): reports, dashboards and insight views. Every key starts with
// workspace_id; the list filters (dataset_key, source_type) have indexes ending in id for keyset pages.
export async function up(db: Kysely<any>): Promise<void> {
  const common = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull());
  const tail = <T extends { addColumn: any }>(builder: T): T =>
    builder
      .addColumn('created_by', 'text')
      .addColumn('created_at', 'text', (c: any) => c.notNull())
      .addColumn('updated_at', 'text', (c: any) => c.notNull())
      .addColumn('archived_at', 'text');

  await tail(
    common('bi_reports')
      .addColumn('description', 'text')
      .addColumn('dataset_key', 'text', (c) => c.notNull())
      .addColumn('definition', 'text', (c) => c.notNull())
      .addColumn('visualization', 'text', (c) => c.notNull())
      .addColumn('last_run_id', 'text')
      .addColumn('last_refreshed_at', 'text')
      .addColumn('last_result', 'text'),
  )
    .addPrimaryKeyConstraint('bi_reports_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_reports_dataset')
    .on('bi_reports')
    .columns(['workspace_id', 'dataset_key', 'id'])
    .execute();

  await tail(
    common('bi_dashboards')
      .addColumn('description', 'text')
      .addColumn('tiles', 'text', (c) => c.notNull()),
  )
    .addPrimaryKeyConstraint('bi_dashboards_pk', ['workspace_id', 'id'])
    .execute();

  await tail(
    common('bi_insight_views')
      .addColumn('question', 'text')
      .addColumn('source_type', 'text', (c) => c.notNull())
      .addColumn('source', 'text', (c) => c.notNull())
      .addColumn('report_style', 'text', (c) => c.notNull())
      .addColumn('dimensions', 'text', (c) => c.notNull())
      .addColumn('measures', 'text', (c) => c.notNull())
      .addColumn('last_run_id', 'text')
      .addColumn('last_refreshed_at', 'text')
      .addColumn('last_result', 'text'),
  )
    .addPrimaryKeyConstraint('bi_insight_views_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_insight_views_source')
    .on('bi_insight_views')
    .columns(['workspace_id', 'source_type', 'id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['bi_insight_views', 'bi_dashboards', 'bi_reports']) {
    await db.schema.dropTable(table).execute();
  }
}
