// Memories kept in a vector collection (the vectors part): a memory created or embedded in a collection with
// an embedder is embedded by it, the builtin one at once in the call's transaction, an external one by a job
// after the commit (never holding the transaction). Every ready vector is also written as a document of the
// collection (document ID = memory ID, metadata source agent_memory, scope, scope_id), so
// search_vector_collection finds memories. New content re-embeds (builtin) or re-queues (external).
import type { Kysely } from 'kysely';
import { auditRow, insertAuditEvents, systemWrite } from '../../../core/audit.ts';
import type { OperationContext } from '../../../core/context.ts';
import { validationFailed } from '../../../core/errors.ts';
import { insertOutboxEvents, outboxRow } from '../../../core/outbox.ts';
import type { DB } from '../../../db/tables.ts';
import type { JobDefinition } from '../../../jobs/types.ts';
import { builtinEmbedding } from '../vectors/builtin-embedder.ts';
import { requireActive } from '../vectors/collections.ts';
import { EmbeddingError, embedExternal } from '../vectors/external-embedder.ts';
import {
  existingDocuments,
  findCollection,
  nextVersion,
  statusDelta,
  upsertDocumentRows,
} from '../vectors/vector-store.ts';
import type { VectorCollectionsTable } from '../vectors/vector-tables.ts';
import type { AgentMemoriesTable, AgentMemoryEmbeddingsTable } from './agent-grid-tables.ts';
import { encodeVector, findEmbedding, findMemory, toEmbedding, updateEmbeddingRow } from './memory-store.ts';

export const MEMORY_EMBED_JOB = 'agent-grid.embed-memory';
const RETRY_LIMIT = 3;

/** The active vector collection of this key, if the workspace has one (other keys name the caller's own stores). */
export async function vectorCollectionOf(
  db: Kysely<DB>,
  workspaceId: string,
  key: string,
  archived: 'skip' | 'refuse' = 'skip',
): Promise<VectorCollectionsTable | undefined> {
  const collection = await findCollection(db, workspaceId, key);
  if (!collection || collection.key !== key) return undefined;
  if (collection.status === 'active') return collection;
  if (archived === 'refuse') requireActive(collection);
  return undefined;
}

/** A caller's vector for a vector collection must have its dimension. */
export function checkCollectionDimension(collection: VectorCollectionsTable | undefined, dimension: number) {
  if (collection && Number(collection.dimension) !== dimension) {
    throw validationFailed([
      {
        field: 'dimension',
        message: `the vector collection ${collection.key} has dimension ${collection.dimension}, not ${dimension}`,
      },
    ]);
  }
}

/** Writes the memory's vector as the collection's document of the same ID, taking a collection version. */
export async function upsertMemoryDocument(
  db: Kysely<DB>,
  memory: AgentMemoriesTable,
  collection: VectorCollectionsTable,
  vector: Buffer,
  now: string,
): Promise<number> {
  // A document the memory replaces leaves the collection's pending and failed counts (the new one is ready).
  const existing = await existingDocuments(db, memory.workspace_id, collection.id, [memory.id]);
  const replaced = statusDelta(existing.values(), -1);
  const { version } = await nextVersion(
    db,
    memory.workspace_id,
    collection.id,
    { documents: existing.size ? 0 : 1, ...replaced },
    now,
  );
  const metadata: Record<string, string | number> = {
    source: 'agent_memory',
    scope: memory.scope,
    importance: Number(memory.importance),
  };
  if (memory.scope_id) metadata.scope_id = memory.scope_id;
  await upsertDocumentRows(db, [
    {
      workspace_id: memory.workspace_id,
      collection_id: collection.id,
      id: memory.id,
      text: memory.content,
      vector,
      metadata: JSON.stringify(metadata),
      status: 'ready',
      embedding_error: null,
      version,
      created_at: now,
      updated_at: now,
    },
  ]);
  return version;
}

/** The collection's side of a memory document written in a call: its audit and vector_documents.upserted. */
function documentWritten(collection: VectorCollectionsTable, memoryId: string, version: number) {
  return {
    audit: {
      targetType: 'vector_collection',
      targetId: collection.id,
      action: 'upsert_documents',
      changedFields: ['documents'],
    },
    event: {
      name: 'vector_documents.upserted',
      targetType: 'vector_collection',
      targetId: collection.id,
      data: {
        collection_id: collection.id,
        collection_key: collection.key,
        document_ids: [memoryId],
        version,
      },
    },
  };
}

/** upsertMemoryDocument in a call, with the collection's audit event and domain event. */
export async function writeMemoryDocument(
  ctx: OperationContext,
  memory: AgentMemoriesTable,
  collection: VectorCollectionsTable,
  vector: Buffer,
): Promise<void> {
  if (memory.status !== 'active') return; // an archived memory has no documents (memory-documents.ts)
  const version = await upsertMemoryDocument(ctx.db, memory, collection, vector, ctx.now);
  const { audit, event } = documentWritten(collection, memory.id, version);
  ctx.audit(audit);
  ctx.emit(event);
}

/**
 * The embedding's next state for the memory's current content, in the call's transaction: builtin embeds
 * now (ready, document written); external becomes pending (or stale, keeping its old vector) and a job is
 * enqueued; none waits for the caller's vector.
 */
export async function embedNow(
  ctx: OperationContext,
  memory: AgentMemoriesTable,
  collection: VectorCollectionsTable,
  row: AgentMemoryEmbeddingsTable,
): Promise<Partial<AgentMemoryEmbeddingsTable>> {
  if (collection.embedder === 'builtin') {
    const vector = encodeVector(Array.from(builtinEmbedding(memory.content, Number(collection.dimension))));
    await writeMemoryDocument(ctx, memory, collection, vector);
    return {
      vector,
      content_sha256: memory.content_sha256,
      status: 'ready',
      model: 'builtin',
      error_message: null,
    };
  }
  if (collection.embedder === 'external') {
    await ctx.enqueue(MEMORY_EMBED_JOB, { workspace_id: ctx.workspaceId, embedding_id: row.id });
    return {
      status: row.vector ? 'stale' : 'pending',
      model: ctx.config.embeddingsModel ?? null,
      error_message: null,
    };
  }
  return { status: row.vector ? 'stale' : 'pending' };
}

type Outcome = { vector: number[]; model: string | null } | { error: string };

/** Records the job's outcome in one short transaction, unless the memory changed meanwhile (a newer job follows). */
async function settle(
  db: Kysely<DB>,
  row: AgentMemoryEmbeddingsTable,
  sha: string,
  outcome: Outcome,
  now: string,
) {
  await db.transaction().execute(async (trx) => {
    const memory = await findMemory(trx, row.workspace_id, row.memory_id);
    const current = await findEmbedding(trx, row.workspace_id, row.id);
    if (
      !memory ||
      !current ||
      memory.content_sha256 !== sha ||
      !['pending', 'stale'].includes(current.status)
    )
      return;
    const set: Partial<AgentMemoryEmbeddingsTable> =
      'error' in outcome
        ? { status: 'failed', error_message: outcome.error, updated_at: now }
        : {
            vector: encodeVector(outcome.vector),
            content_sha256: sha,
            status: 'ready',
            model: outcome.model,
            error_message: null,
            updated_at: now,
          };
    await updateEmbeddingRow(trx, row.workspace_id, row.id, set);
    const collection = await vectorCollectionOf(trx, row.workspace_id, row.collection_key);
    const version =
      set.vector &&
      collection &&
      memory.status === 'active' &&
      (await upsertMemoryDocument(trx, memory, collection, set.vector, now));
    const write = systemWrite({
      workspaceId: row.workspace_id,
      occurredAt: now,
      actorName: 'memory embedder',
      tool: 'create_agent_memory_embedding',
      defaultAction: 'update',
      causedBy: row.id,
    });
    const document = collection && version ? documentWritten(collection, memory.id, version) : undefined;
    await insertAuditEvents(trx, [
      auditRow(write, {
        targetType: 'agent_memory_embedding',
        targetId: row.id,
        changedFields: Object.keys(set).filter((f) => f !== 'updated_at' && f !== 'content_sha256'),
      }),
      ...(document ? [auditRow(write, document.audit)] : []),
    ]);
    const data = toEmbedding({ ...current, ...set }, false);
    await insertOutboxEvents(trx, [
      outboxRow(row.workspace_id, write.requestId, now, {
        name: 'agent_memory_embedding.updated',
        targetType: 'agent_memory_embedding',
        targetId: row.id,
        data,
      }),
      ...(document ? [outboxRow(row.workspace_id, write.requestId, now, document.event)] : []),
    ]);
  });
}

/** Embeds one memory with the operator's embeddings endpoint, off any transaction. */
export const memoryEmbedJob: JobDefinition<{ workspace_id: string; embedding_id: string }> = {
  name: MEMORY_EMBED_JOB,
  retryLimit: RETRY_LIMIT,
  retryDelaySeconds: 5,
  timeoutSeconds: 120,
  async run(job, env) {
    const row = await findEmbedding(env.db, job.payload.workspace_id, job.payload.embedding_id);
    if (!row || !['pending', 'stale'].includes(row.status)) return;
    const memory = await findMemory(env.db, row.workspace_id, row.memory_id);
    if (!memory) return;
    const now = () => env.clock.now().toISOString();
    try {
      const [vector] = await embedExternal(env.config, [memory.content], Number(row.dimension));
      await settle(
        env.db,
        row,
        memory.content_sha256,
        { vector: vector!, model: env.config.embeddingsModel ?? null },
        now(),
      );
    } catch (error) {
      if (!(error instanceof EmbeddingError)) throw error;
      if (error.retryable && job.attempt <= RETRY_LIMIT) throw error;
      await settle(env.db, row, memory.content_sha256, { error: error.message }, now());
    }
  },
};
