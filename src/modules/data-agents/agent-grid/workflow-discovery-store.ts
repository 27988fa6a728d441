// Queries of workflow discovery: the workspace's system vector collection that indexes its workflows (one
// document per workflow, document ID = workflow ID) and the keyword candidates read from the workflows.
import { type Kysely, sql } from 'kysely';
import { newId } from '../../../core/ids.ts';
import type { DB } from '../../../db/tables.ts';
import { encodeVector } from '../vectors/vector-math.ts';
import {
  deleteDocumentRows,
  existingDocuments,
  findCollection,
  nextVersion,
  scanDocuments,
  statusDelta,
  upsertDocumentRows,
} from '../vectors/vector-store.ts';
import type { VectorCollectionsTable } from '../vectors/vector-tables.ts';
import type { AgentWorkflowsTable } from './agent-grid-tables.ts';
import { embed, RANK_DIMENSION } from './text-rank.ts';

/** Outside the key pattern callers may create (it starts with _), so it never collides with theirs. */
export const DISCOVERY_COLLECTION = '_agent_grid_workflows';

export function findDiscoveryCollection(db: Kysely<DB>, workspaceId: string) {
  return findCollection(db, workspaceId, DISCOVERY_COLLECTION);
}

/** The workspace's discovery collection, created on first use (a concurrent creator's row is kept). */
export async function ensureDiscoveryCollection(
  db: Kysely<DB>,
  workspaceId: string,
  now: string,
): Promise<VectorCollectionsTable> {
  const existing = await findDiscoveryCollection(db, workspaceId);
  if (existing) return existing;
  const row: VectorCollectionsTable = {
    workspace_id: workspaceId,
    id: newId('vcol'),
    key: DISCOVERY_COLLECTION,
    name: 'Agent Grid workflow discovery (system)',
    description:
      'Maintained by the service: one document per agent workflow (name, description, step tools). Rebuilt by reindex_agent_grid_workflow_discovery.',
    dimension: RANK_DIMENSION,
    metric: 'cosine',
    embedder: 'builtin',
    status: 'active',
    document_count: 0,
    pending_count: 0,
    failed_count: 0,
    version: 0,
    created_at: now,
    updated_at: now,
    archived_at: null,
  };
  await db
    .insertInto('vector_collections')
    .values(row)
    .onConflict((oc) => oc.columns(['workspace_id', 'key']).doNothing())
    .execute();
  return (await findDiscoveryCollection(db, workspaceId)) ?? row;
}

export interface WorkflowDocument {
  id: string;
  text: string;
  metadata: { key: string; status: string; trigger_type: string; tools: string[] };
}

/** Writes workflow documents (embedded with the builtin embedder) under one new collection version. */
export async function upsertWorkflowDocuments(
  db: Kysely<DB>,
  collection: VectorCollectionsTable,
  documents: WorkflowDocument[],
  now: string,
): Promise<void> {
  if (documents.length === 0) return;
  const ids = documents.map((d) => d.id);
  const existing = await existingDocuments(db, collection.workspace_id, collection.id, ids);
  // Replaced documents leave whatever status counter they were in; every document written is ready.
  const { version } = await nextVersion(
    db,
    collection.workspace_id,
    collection.id,
    { documents: ids.length - existing.size, ...statusDelta(existing.values(), -1) },
    now,
  );
  await upsertDocumentRows(
    db,
    documents.map((doc) => ({
      workspace_id: collection.workspace_id,
      collection_id: collection.id,
      id: doc.id,
      text: doc.text,
      vector: encodeVector(embed(doc.text)),
      metadata: JSON.stringify(doc.metadata),
      status: 'ready' as const,
      embedding_error: null,
      version,
      created_at: now,
      updated_at: now,
    })),
  );
}

/** Removes documents whose workflow is gone (a rebuild keeps only what it wrote). */
export async function deleteWorkflowDocuments(
  db: Kysely<DB>,
  collection: VectorCollectionsTable,
  ids: string[],
  now: string,
): Promise<void> {
  if (ids.length === 0) return;
  const existing = await existingDocuments(db, collection.workspace_id, collection.id, ids);
  const { version } = await nextVersion(
    db,
    collection.workspace_id,
    collection.id,
    { documents: -existing.size, ...statusDelta(existing.values(), -1) },
    now,
  );
  await deleteDocumentRows(db, collection.workspace_id, collection.id, ids, version);
}

/** Every document ID of the collection, read in chunks. */
export async function documentIdsOf(db: Kysely<DB>, collection: VectorCollectionsTable): Promise<string[]> {
  const ids: string[] = [];
  let afterId: string | undefined;
  for (;;) {
    const docs = await scanDocuments(db, collection.workspace_id, collection.id, {
      afterId,
      limit: 2000,
      withVectors: false,
    });
    ids.push(...docs.map((d) => d.id));
    if (docs.length < 2000) return ids;
    afterId = docs[docs.length - 1]!.id;
  }
}

/** One chunk of the workspace's workflows in ID order (a rebuild reads them all this way). */
export function workflowChunk(
  db: Kysely<DB>,
  workspaceId: string,
  afterId: string | undefined,
  limit: number,
) {
  return db
    .selectFrom('agent_workflows')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .$if(afterId !== undefined, (q) => q.where('id', '>', afterId!))
    .orderBy('id')
    .limit(limit)
    .execute();
}

export function workflowsByIds(db: Kysely<DB>, workspaceId: string, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([] as AgentWorkflowsTable[]);
  return db
    .selectFrom('agent_workflows')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
}

/**
 * Workflows whose name, description or steps (tool names, step descriptions) contain any of the terms: the
 * keyword side's candidates, found even when the index is not built yet. Bounded by `limit`.
 */
export function keywordCandidates(
  db: Kysely<DB>,
  workspaceId: string,
  searchTerms: string[],
  filters: { status?: string; trigger_type?: string },
  limit: number,
) {
  if (searchTerms.length === 0) return Promise.resolve([] as AgentWorkflowsTable[]);
  return db
    .selectFrom('agent_workflows')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .$if(filters.status !== undefined, (q) => q.where('status', '=', filters.status as 'active'))
    .$if(filters.trigger_type !== undefined, (q) =>
      q.where('trigger_type', '=', filters.trigger_type as 'manual'),
    )
    .where((eb) =>
      eb.or(
        searchTerms.flatMap((term) => {
          const like = `%${term.replace(/[%_\\]/g, '')}%`;
          return [
            eb(sql`lower(name)`, 'like', like),
            eb(sql`lower(coalesce(description, ''))`, 'like', like),
            eb(sql`lower(steps)`, 'like', like),
          ];
        }),
      ),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
}
