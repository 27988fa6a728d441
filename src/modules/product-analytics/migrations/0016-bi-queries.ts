import type { Kysely } from 'kysely';

// Custom BI's core: custom datasets, saved queries, metrics and the BI side of runs (bi/bi-tables.ts), and
// the indexes the governed templates' time ranges read through. Every key starts with workspace_id.
export async function up(db: Kysely<any>): Promise<void> {
  const common = (name: string) =>
    db.schema
      .createTable(name)
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull());

  await common('bi_datasets')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('template_key', 'text', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('filters', 'text', (c) => c.notNull())
    .addColumn('column_descriptions', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('bi_datasets_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_datasets_key')
    .unique()
    .on('bi_datasets')
    .columns(['workspace_id', 'key'])
    .execute();

  await common('bi_queries')
    .addColumn('name', 'text')
    .addColumn('dataset_key', 'text', (c) => c.notNull())
    .addColumn('definition', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('last_run_id', 'text')
    .addColumn('last_run_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('bi_queries_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_queries_dataset')
    .on('bi_queries')
    .columns(['workspace_id', 'dataset_key', 'id'])
    .execute();

  await common('bi_metrics')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('dataset_key', 'text', (c) => c.notNull())
    .addColumn('expression', 'text', (c) => c.notNull())
    .addColumn('format', 'text', (c) => c.notNull())
    .addColumn('time_column', 'text')
    .addColumn('synonyms', 'text', (c) => c.notNull())
    .addColumn('example_questions', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('compiled_sql', 'text', (c) => c.notNull())
    .addColumn('sql_parameters', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('bi_metrics_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('bi_metrics_key')
    .unique()
    .on('bi_metrics')
    .columns(['workspace_id', 'key'])
    .execute();
  await db.schema
    .createIndex('bi_metrics_dataset')
    .on('bi_metrics')
    .columns(['workspace_id', 'dataset_key', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('bi_run_details')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    .addColumn('related', 'text', (c) => c.notNull())
    .addColumn('row_count', 'bigint')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('bi_run_details_pk', ['workspace_id', 'run_id'])
    .execute();

  // Time ranges of the templates: deals and tickets by created_at (call events already have theirs).
  await db.schema.createIndex('deals_created').on('deals').columns(['workspace_id', 'created_at']).execute();
  // crm_pipeline's default query (value per stage and currency) reads this index alone, not the deals.
  await db.schema
    .createIndex('deals_stage_value')
    .on('deals')
    .columns(['workspace_id', 'stage_key', 'currency', 'amount_cents'])
    .execute();
  await db.schema
    .createIndex('support_tickets_created')
    .on('support_tickets')
    .columns(['workspace_id', 'created_at'])
    .execute();
}
