import type { Kysely } from 'kysely';

// Support desk, CMS and marketing, and assets. Every key starts with workspace_id; indexes serve the list
// filters (newest first by id) and the summary counts.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('support_queues')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('default_assignee_id', 'text')
    .addColumn('default_priority', 'text', (c) => c.notNull())
    .addColumn('first_response_target_minutes', 'integer')
    .addColumn('next_response_target_minutes', 'integer')
    .addColumn('resolution_target_minutes', 'integer')
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('support_queues_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('support_queues_key', ['workspace_id', 'key'])
    .execute();
  await db.schema
    .createIndex('support_queues_status')
    .on('support_queues')
    .columns(['workspace_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('support_tickets')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('queue_id', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('priority', 'text', (c) => c.notNull())
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('requester_contact_id', 'text')
    .addColumn('requester_name', 'text')
    .addColumn('requester_email', 'text')
    .addColumn('assignee_id', 'text')
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('custom_fields', 'text', (c) => c.notNull())
    .addColumn('first_response_due_at', 'text')
    .addColumn('first_responded_at', 'text')
    .addColumn('next_response_due_at', 'text')
    .addColumn('next_responded_at', 'text')
    .addColumn('resolution_due_at', 'text')
    .addColumn('resolved_at', 'text')
    .addColumn('closed_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('support_tickets_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint('support_tickets_queue_fk', ['workspace_id', 'queue_id'], 'support_queues', [
      'workspace_id',
      'id',
    ])
    .execute();
  for (const column of [
    'queue_id',
    'status',
    'priority',
    'assignee_id',
    'requester_contact_id',
    'requester_email',
  ]) {
    await db.schema
      .createIndex(`support_tickets_${column}`)
      .on('support_tickets')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }
  // Covers the SLA breach count of get_workspace_summary and the sla_breached filter without table reads.
  await db.schema
    .createIndex('support_tickets_sla')
    .on('support_tickets')
    .columns([
      'workspace_id',
      'status',
      'first_response_due_at',
      'first_responded_at',
      'resolution_due_at',
      'resolved_at',
      'next_response_due_at',
      'next_responded_at',
    ])
    .execute();

  for (const table of ['support_ticket_messages', 'support_ticket_comments']) {
    let builder = db.schema
      .createTable(table)
      .addColumn('workspace_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('ticket_id', 'text', (c) => c.notNull());
    if (table === 'support_ticket_messages') {
      builder = builder.addColumn('direction', 'text', (c) => c.notNull()).addColumn('author_email', 'text');
    }
    await builder
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('author_id', 'text')
      .addColumn('author_name', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ['workspace_id', 'id'])
      .addForeignKeyConstraint(`${table}_ticket_fk`, ['workspace_id', 'ticket_id'], 'support_tickets', [
        'workspace_id',
        'id',
      ])
      .execute();
    await db.schema
      .createIndex(`${table}_ticket`)
      .on(table)
      .columns(['workspace_id', 'ticket_id', 'id'])
      .execute();
  }

  await db.schema
    .createTable('cms_sites')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('domain', 'text')
    .addColumn('default_locale', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cms_sites_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('cms_sites_domain', ['workspace_id', 'domain'])
    .execute();

  await db.schema
    .createTable('cms_collections')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cms_collections_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('cms_collections_key', ['workspace_id', 'site_id', 'key'])
    .addForeignKeyConstraint('cms_collections_site_fk', ['workspace_id', 'site_id'], 'cms_sites', [
      'workspace_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('cms_collections_site')
    .on('cms_collections')
    .columns(['workspace_id', 'site_id', 'id'])
    .execute();

  await db.schema
    .createTable('cms_entries')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('search_text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('cms_entries_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('cms_entries_slug', ['workspace_id', 'collection_id', 'slug'])
    .addForeignKeyConstraint(
      'cms_entries_collection_fk',
      ['workspace_id', 'collection_id'],
      'cms_collections',
      ['workspace_id', 'id'],
    )
    .execute();
  for (const column of ['status', 'site_id', 'collection_id']) {
    await db.schema
      .createIndex(`cms_entries_${column}`)
      .on('cms_entries')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }

  await db.schema
    .createTable('marketing_campaigns')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('budget_cents', 'bigint')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'text')
    .addColumn('ends_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('marketing_campaigns_pk', ['workspace_id', 'id'])
    .execute();
  for (const column of ['status', 'channel']) {
    await db.schema
      .createIndex(`marketing_campaigns_${column}`)
      .on('marketing_campaigns')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }

  await db.schema
    .createTable('marketing_posts')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('campaign_id', 'text')
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('body', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('scheduled_at', 'text')
    .addColumn('published_at', 'text')
    .addColumn('cms_entry_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('marketing_posts_pk', ['workspace_id', 'id'])
    .addForeignKeyConstraint(
      'marketing_posts_campaign_fk',
      ['workspace_id', 'campaign_id'],
      'marketing_campaigns',
      ['workspace_id', 'id'],
    )
    .execute();
  for (const column of ['campaign_id', 'status', 'channel']) {
    await db.schema
      .createIndex(`marketing_posts_${column}`)
      .on('marketing_posts')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }

  await db.schema
    .createTable('assets')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('asset_type', 'text', (c) => c.notNull())
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'bigint', (c) => c.notNull())
    .addColumn('checksum_sha256', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('related_resource_type', 'text')
    .addColumn('related_resource_id', 'text')
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('ready_at', 'text')
    .addColumn('archived_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('assets_pk', ['workspace_id', 'id'])
    .execute();
  // Signed content URLs carry no credential: the asset (and so its workspace) is found by ID alone.
  await db.schema.createIndex('assets_id').on('assets').column('id').execute();
  for (const column of ['status', 'asset_type']) {
    await db.schema
      .createIndex(`assets_${column}`)
      .on('assets')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }
  await db.schema
    .createIndex('assets_related')
    .on('assets')
    .columns(['workspace_id', 'related_resource_type', 'related_resource_id', 'id'])
    .execute();
}
