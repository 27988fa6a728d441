// The queries of vector collections. Every statement filters by workspace_id first (the keys' first column).
import { type Kysely, sql } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { DB } from '../../../db/tables.ts';
import type { VectorCollection } from './vector-schemas.ts';
import type { VectorCollectionsTable, VectorDocumentStatus, VectorDocumentsTable } from './vector-tables.ts';

export function toCollection(row: VectorCollectionsTable): VectorCollection {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    dimension: Number(row.dimension),
    metric: row.metric,
    embedder: row.embedder,
    status: row.status,
    document_count: Number(row.document_count),
    pending_count: Number(row.pending_count),
    failed_count: Number(row.failed_count),
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

export async function insertCollection(db: Kysely<DB>, row: VectorCollectionsTable): Promise<void> {
  await db.insertInto('vector_collections').values(row).execute();
}

/** A collection by its key or its ID (the REST lookup and get_record accept either). */
export async function findCollection(
  db: Kysely<DB>,
  workspaceId: string,
  keyOrId: string,
): Promise<VectorCollectionsTable | undefined> {
  return db
    .selectFrom('vector_collections')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where((eb) => eb.or([eb('key', '=', keyOrId), eb('id', '=', keyOrId)]))
    .executeTakeFirst();
}

export async function listCollections(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: 'active' | 'archived' },
  page: PageRequest,
) {
  let query = db.selectFrom('vector_collections').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toCollection) };
}

export async function setCollectionStatus(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Pick<VectorCollectionsTable, 'status' | 'archived_at' | 'updated_at'>,
): Promise<void> {
  await db
    .updateTable('vector_collections')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

/**
 * Takes the collection's next version for a write, adjusting its document count. On PostgreSQL the row lock
 * it takes orders concurrent writers of one collection, so versions commit in order.
 */
export async function nextVersion(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  change: number | { documents: number; pending: number; failed: number },
  now: string,
): Promise<Pick<VectorCollectionsTable, 'version' | 'document_count' | 'pending_count' | 'failed_count'>> {
  // A number: documents added (or removed) that are all ready (Agent Grid memories write only those).
  const delta = typeof change === 'number' ? { documents: change, pending: 0, failed: 0 } : change;
  const row = await db
    .updateTable('vector_collections')
    .set({
      version: sql`version + 1`,
      document_count: sql`document_count + ${delta.documents}`,
      pending_count: sql`pending_count + ${delta.pending}`,
      failed_count: sql`failed_count + ${delta.failed}`,
      updated_at: now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning(['version', 'document_count', 'pending_count', 'failed_count'])
    .executeTakeFirstOrThrow();
  return {
    version: Number(row.version),
    document_count: Number(row.document_count),
    pending_count: Number(row.pending_count),
    failed_count: Number(row.failed_count),
  };
}

/** How the statuses of documents being replaced or deleted move the collection's counters. */
export function statusDelta(statuses: Iterable<VectorDocumentStatus>, sign: 1 | -1) {
  let pending = 0;
  let failed = 0;
  for (const status of statuses) {
    if (status === 'pending') pending += sign;
    if (status === 'failed') failed += sign;
  }
  return { pending, failed };
}

/** The collection's current version and size (the staleness check of an in-memory index). */
export async function collectionState(db: Kysely<DB>, workspaceId: string, id: string) {
  const row = await db
    .selectFrom('vector_collections')
    .select(['version', 'document_count'])
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
  return row ? { version: Number(row.version), document_count: Number(row.document_count) } : undefined;
}

/** Those of `ids` that exist. */
export async function existingDocumentIds(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  ids: string[],
): Promise<Set<string>> {
  return new Set((await existingDocuments(db, workspaceId, collectionId, ids)).keys());
}

/** The statuses of those of `ids` that exist. */
export async function existingDocuments(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  ids: string[],
): Promise<Map<string, VectorDocumentStatus>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('vector_documents')
    .select(['id', 'status'])
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((r) => [r.id, r.status]));
}

/** Inserts documents, replacing those whose ID exists (an upsert replaces text, vector and metadata whole). */
export async function upsertDocumentRows(db: Kysely<DB>, rows: VectorDocumentsTable[]): Promise<void> {
  // Chunks keep the statement under SQLite's and PostgreSQL's parameter limits.
  for (let i = 0; i < rows.length; i += 100) {
    await db
      .insertInto('vector_documents')
      .values(rows.slice(i, i + 100))
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'collection_id', 'id']).doUpdateSet((eb) => ({
          text: eb.ref('excluded.text'),
          vector: eb.ref('excluded.vector'),
          metadata: eb.ref('excluded.metadata'),
          status: eb.ref('excluded.status'),
          embedding_error: eb.ref('excluded.embedding_error'),
          version: eb.ref('excluded.version'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Deletes documents and records their tombstones at `version`. */
export async function deleteDocumentRows(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  ids: string[],
  version: number,
): Promise<void> {
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    await db
      .deleteFrom('vector_documents')
      .where('workspace_id', '=', workspaceId)
      .where('collection_id', '=', collectionId)
      .where('id', 'in', chunk)
      .execute();
    await db
      .insertInto('vector_document_tombstones')
      .values(
        chunk.map((document_id) => ({
          workspace_id: workspaceId,
          collection_id: collectionId,
          document_id,
          version,
        })),
      )
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'collection_id', 'document_id']).doUpdateSet({ version }),
      )
      .execute();
  }
}

export type ScannedDocument = Pick<
  VectorDocumentsTable,
  'id' | 'text' | 'vector' | 'metadata' | 'version' | 'status'
>;

/**
 * One chunk of a collection's documents in ID order after `afterId`: whole collections are read in chunks
 * (exact search, index builds, delete by filter), never all at once. `withVectors` false leaves the bytes out.
 */
export async function scanDocuments(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  options: { afterId?: string; limit: number; withVectors: boolean; sinceVersion?: number },
): Promise<ScannedDocument[]> {
  let query = db
    .selectFrom('vector_documents')
    .select(['id', 'text', 'metadata', 'version', 'status'])
    .$if(options.withVectors, (q) => q.select('vector'))
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId);
  // A catch-up (sinceVersion) also needs documents that lost their vector (replaced by pending text).
  if (options.withVectors && options.sinceVersion === undefined) query = query.where('status', '=', 'ready');
  if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
  if (options.sinceVersion !== undefined) query = query.where('version', '>', options.sinceVersion);
  const rows = await query.orderBy('id').limit(options.limit).execute();
  return rows.map((row) => ({ vector: null, ...row }) as ScannedDocument);
}

export async function tombstonesSince(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  version: number,
): Promise<string[]> {
  const rows = await db
    .selectFrom('vector_document_tombstones')
    .select('document_id')
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where('version', '>', version)
    .execute();
  return rows.map((r) => r.document_id);
}

/** The texts of a collection's documents waiting for an external embedding. */
export async function pendingDocuments(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  limit: number,
) {
  return db
    .selectFrom('vector_documents')
    .select(['id', 'text', 'version'])
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where('status', '=', 'pending')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/**
 * Stores an embedding (or its failure) for a pending document, unless the document was replaced or deleted
 * since it was read (its version changed): the newer write has its own embedding on the way.
 */
export async function settleEmbedding(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  document: { id: string; version: number },
  outcome: { vector: Buffer; version: number } | { error: string; version: number },
): Promise<boolean> {
  const result = await db
    .updateTable('vector_documents')
    .set(
      'vector' in outcome
        ? { vector: outcome.vector, status: 'ready', embedding_error: null, version: outcome.version }
        : { status: 'failed', embedding_error: outcome.error, version: outcome.version },
    )
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where('id', '=', document.id)
    .where('status', '=', 'pending')
    .where('version', '=', document.version)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function getDocuments(
  db: Kysely<DB>,
  workspaceId: string,
  collectionId: string,
  ids: string[],
  withVectors: boolean,
): Promise<Pick<VectorDocumentsTable, 'id' | 'text' | 'metadata' | 'vector'>[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('vector_documents')
    .select(['id', 'text', 'metadata'])
    .$if(withVectors, (q) => q.select('vector'))
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where('id', 'in', ids)
    .execute();
  return rows.map((row) => ({ vector: null, ...row }));
}

/**
 * Active collections of at least `minDocuments`, most recently written first, across workspaces: read once
 * when a node starts (index warm-up), over a table of one row per collection.
 */
export async function largeCollections(db: Kysely<DB>, minDocuments: number, limit: number) {
  return db
    .selectFrom('vector_collections')
    .select(['workspace_id', 'id', 'dimension', 'metric'])
    .where('status', '=', 'active')
    .where('document_count', '>=', minDocuments)
    .orderBy('updated_at', 'desc')
    .limit(limit)
    .execute();
}

/** Moves the pending and failed counters without a new version (in the transaction that took one). */
export async function adjustCounters(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  delta: { pending: number; failed: number },
): Promise<void> {
  await db
    .updateTable('vector_collections')
    .set({
      pending_count: sql`pending_count + ${delta.pending}`,
      failed_count: sql`failed_count + ${delta.failed}`,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
