// A memory's documents in vector collections follow its status: archived, it leaves every collection it
// was written to (searches stop finding it); active again, its ready vectors are written back.
import type { OperationContext } from '../../../core/context.ts';
import { deleteDocumentRows, existingDocuments, nextVersion, statusDelta } from '../vectors/vector-store.ts';
import type { AgentMemoriesTable } from './agent-grid-tables.ts';
import { vectorCollectionOf, writeMemoryDocument } from './memory-embedder.ts';
import { embeddingsOfMemory } from './memory-store.ts';

export async function syncMemoryDocuments(ctx: OperationContext, memory: AgentMemoriesTable): Promise<void> {
  for (const embedding of await embeddingsOfMemory(ctx.db, ctx.workspaceId, memory.id)) {
    const collection = await vectorCollectionOf(ctx.db, ctx.workspaceId, embedding.collection_key);
    if (!collection) continue;
    if (memory.status === 'active') {
      if (embedding.status === 'ready' && embedding.vector) {
        await writeMemoryDocument(ctx, memory, collection, Buffer.from(embedding.vector));
      }
      continue;
    }
    const present = await existingDocuments(ctx.db, ctx.workspaceId, collection.id, [memory.id]);
    if (present.size === 0) continue;
    const delta = { documents: -1, ...statusDelta(present.values(), -1) };
    const { version } = await nextVersion(ctx.db, ctx.workspaceId, collection.id, delta, ctx.now);
    await deleteDocumentRows(ctx.db, ctx.workspaceId, collection.id, [memory.id], version);
    ctx.audit({
      targetType: 'vector_collection',
      targetId: collection.id,
      action: 'delete_documents',
      changedFields: ['documents'],
    });
    ctx.emit({
      name: 'vector_documents.deleted',
      targetType: 'vector_collection',
      targetId: collection.id,
      data: {
        collection_id: collection.id,
        collection_key: collection.key,
        document_ids: [memory.id],
        version,
      },
    });
  }
}
