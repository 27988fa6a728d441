import type { Kysely } from 'kysely';
import { listIndex } from '../../../db/migration-schema.ts';

// Data Agents dataset versions and manifests (issue 13 item 2). A version is numbered per dataset key: the
// unique (workspace_id, dataset_key, version) is what makes two concurrent snapshots take 1 and 2, never
// both 1. One manifest per version. Lists are newest first by id, each filter with its index ending in id.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('data_agent_dataset_versions')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('dataset_key', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('template_key', 'text', (c) => c.notNull())
    .addColumn('dataset_id', 'text')
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('columns', 'text', (c) => c.notNull())
    .addColumn('row_count', 'integer', (c) => c.notNull())
    .addColumn('checksum', 'text', (c) => c.notNull())
    .addColumn('query', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('decision_id', 'text')
    .addColumn('created_by', 'text')
    .addColumn('approved_at', 'text')
    .addColumn('deprecated_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_dataset_versions_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('data_agent_dataset_versions_number', ['workspace_id', 'dataset_key', 'version'])
    .execute();
  await listIndex(db, 'data_agent_dataset_versions', 'status', ['status']);
  await listIndex(db, 'data_agent_dataset_versions', 'key', ['dataset_key']);

  await db.schema
    .createTable('data_agent_dataset_manifests')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('version_id', 'text', (c) => c.notNull())
    .addColumn('dataset_key', 'text', (c) => c.notNull())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('freshness', 'text')
    .addColumn('column_docs', 'text', (c) => c.notNull())
    .addColumn('source_object_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_dataset_manifests_pk', ['workspace_id', 'id'])
    .addUniqueConstraint('data_agent_dataset_manifests_version', ['workspace_id', 'version_id'])
    .execute();
  await listIndex(db, 'data_agent_dataset_manifests', 'key', ['dataset_key']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('data_agent_dataset_manifests').execute();
  await db.schema.dropTable('data_agent_dataset_versions').execute();
}
