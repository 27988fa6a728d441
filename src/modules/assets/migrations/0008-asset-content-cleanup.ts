import type { Kysely } from 'kysely';

// The assets cleanup job deletes the bytes of archived and expired assets once and records when. Its sweep
// spans workspaces (a system task), so its index leads with status, like assets_id serves the signed URLs.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('assets').addColumn('content_deleted_at', 'text').execute();
  await db.schema
    .createIndex('assets_content_cleanup')
    .on('assets')
    .columns(['status', 'content_deleted_at', 'created_at'])
    .execute();
}
