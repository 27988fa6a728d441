import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../../db/dialect.ts';

// Vector collections: collections, their documents (vectors as float32 bytes: BLOB / bytea) and the
// tombstones of deleted documents. Every key starts with workspace_id.

export async function up(db: Kysely<any>): Promise<void> {
  const bytes = isPostgres(db) ? sql`bytea` : sql`blob`;
  await db.schema
    .createTable('vector_collections')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('dimension', 'integer', (c) => c.notNull())
    .addColumn('metric', 'text', (c) => c.notNull())
    .addColumn('embedder', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('document_count', 'bigint', (c) => c.notNull())
    .addColumn('pending_count', 'bigint', (c) => c.notNull())
    .addColumn('failed_count', 'bigint', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('vector_collections_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('vector_collections_key')
    .on('vector_collections')
    .columns(['workspace_id', 'key'])
    .unique()
    .execute();
  // list_vector_collections filtered by status, newest first.
  await db.schema
    .createIndex('vector_collections_status')
    .on('vector_collections')
    .columns(['workspace_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('vector_documents')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('vector', bytes)
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('embedding_error', 'text')
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('vector_documents_pk', ['workspace_id', 'collection_id', 'id'])
    .execute();
  // An index catching up reads the documents written after the version it holds.
  await db.schema
    .createIndex('vector_documents_version')
    .on('vector_documents')
    .columns(['workspace_id', 'collection_id', 'version'])
    .execute();
  // The embedding job finds a collection's pending documents.
  await db.schema
    .createIndex('vector_documents_status')
    .on('vector_documents')
    .columns(['workspace_id', 'collection_id', 'status', 'id'])
    .execute();

  await db.schema
    .createTable('vector_document_tombstones')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('collection_id', 'text', (c) => c.notNull())
    .addColumn('document_id', 'text', (c) => c.notNull())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('vector_document_tombstones_pk', [
      'workspace_id',
      'collection_id',
      'document_id',
    ])
    .execute();
  await db.schema
    .createIndex('vector_document_tombstones_version')
    .on('vector_document_tombstones')
    .columns(['workspace_id', 'collection_id', 'version'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('vector_document_tombstones').execute();
  await db.schema.dropTable('vector_documents').execute();
  await db.schema.dropTable('vector_collections').execute();
}
