import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { uniquely } from '../../../core/db-errors.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { fail, notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { externalEmbedderConfigured } from './external-embedder.ts';
import { dropIndex } from './vector-index.ts';
import {
  collectionKeyInput,
  EMBEDDERS,
  MAX_DIMENSION,
  METRICS,
  VectorCollectionSchema,
} from './vector-schemas.ts';
import {
  findCollection,
  insertCollection,
  listCollections,
  setCollectionStatus,
  toCollection,
} from './vector-store.ts';
import type { VectorCollectionsTable } from './vector-tables.ts';

export const vectorCollectionRecord = defineRecordType({
  type: 'vector_collection',
  module: 'data_agents',
  table: 'vector_collections',
  collection: '/v1/vector-collections',
  key: 'vector_collection',
  readScope: 'vector_store:read',
  schema: VectorCollectionSchema,
  // Looked up by key (the routes' path segment) or by ID.
  load: (db, workspaceId, keyOrId) => findCollection(db, workspaceId, keyOrId),
  toResource: toCollection,
});

/** The collection of a route's collection_key in this workspace (resource_not_found otherwise). */
export async function requireCollection(ctx: OperationContext, key: string): Promise<VectorCollectionsTable> {
  const row = await findCollection(ctx.db, ctx.workspaceId, key);
  if (!row || row.key !== key) throw notFound('vector collection');
  return row;
}

/** Writes and searches need an active collection: an archived one keeps its documents but refuses them. */
export function requireActive(row: VectorCollectionsTable): void {
  if (row.status === 'archived') {
    throw fail('conflict', {
      message: `The vector collection ${row.key} is archived: its documents are kept but it cannot be searched or changed. An operator can restore it.`,
    });
  }
}

export const createVectorCollection = defineOperation({
  name: 'create_vector_collection',
  module: 'data_agents',
  scopes: ['vector_store:write'],
  kind: 'create',
  creates: 'vector_collection',
  summary: 'Create a vector collection',
  description:
    'Creates a vector collection: a key unique in the workspace (used in the routes), a dimension (1-4096), a metric (cosine, dot, euclidean) and an embedder: none (you send vectors), builtin (the service embeds text itself, offline and lexical: shared words and word fragments, not meaning) or external (the operator-configured embeddings endpoint, asynchronous). Then add documents with upsert_vector_documents and query with search_vector_collection. Emits vector_collection.created.',
  input: Strict({
    key: collectionKeyInput,
    name: Type.String({ minLength: 1, maxLength: 200, examples: ['Support articles'] }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    dimension: Type.Integer({ minimum: 1, maximum: MAX_DIMENSION, examples: [384] }),
    metric: Type.Optional(Enum(METRICS, { description: 'Default cosine.' })),
    embedder: Type.Optional(Enum(EMBEDDERS, { description: 'Default none.' })),
  }),
  rest: { method: 'POST', path: '/v1/vector-collections' },
  responseKey: 'vector_collection',
  handler: async (ctx, input) => {
    const embedder = input.embedder ?? 'none';
    if (embedder === 'external' && !externalEmbedderConfigured(ctx.config)) {
      throw validationFailed([
        {
          field: 'embedder',
          message:
            'no external embeddings endpoint is configured on this installation (the operator sets WOS_EMBEDDINGS_URL and WOS_EMBEDDINGS_MODEL); use builtin or none',
        },
      ]);
    }
    const taken = 'a vector collection with this key exists in the workspace (archived ones keep their key)';
    if (await findCollection(ctx.db, ctx.workspaceId, input.key)) {
      throw validationFailed([{ field: 'key', message: taken }]);
    }
    const row: VectorCollectionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('vcol'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      dimension: input.dimension,
      metric: input.metric ?? 'cosine',
      embedder,
      status: 'active',
      document_count: 0,
      pending_count: 0,
      failed_count: 0,
      version: 0,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await uniquely(() => insertCollection(ctx.db, row), 'key', taken);
    const collection = toCollection(row);
    ctx.audit({ targetType: 'vector_collection', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'vector_collection.created',
      targetType: 'vector_collection',
      targetId: row.id,
      data: collection,
    });
    return { body: { vector_collection: collection }, createdId: row.id };
  },
});

export const listVectorCollections = defineOperation({
  name: 'list_vector_collections',
  module: 'data_agents',
  scopes: ['vector_store:read'],
  kind: 'read',
  summary: 'List vector collections',
  description:
    "Lists the workspace's vector collections, newest first, with their dimension, metric, embedder, status and document count; status narrows to active or archived. Use it to find a collection's key before searching.",
  input: Strict({
    status: Type.Optional(Enum(['active', 'archived'] as const)),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/vector-collections' },
  responseKey: 'vector_collections',
  handler: async (ctx, input) => {
    const page = await listCollections(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_vector_collections', input),
    );
    return { body: listBody('vector_collections', page) };
  },
});

export const archiveVectorCollection = defineOperation({
  name: 'archive_vector_collection',
  module: 'data_agents',
  scopes: ['vector_store:write'],
  kind: 'archive',
  summary: 'Archive a vector collection',
  description:
    'Archives a vector collection: its documents are kept, but searches, upserts and deletes answer 409 conflict until an operator restores it (POST /admin/v1/workspaces/{workspace_id}/vector-collections/{collection_key}/restore). The key stays taken. Archiving again returns it unchanged. Emits vector_collection.archived.',
  input: Strict({ collection_key: collectionKeyInput }),
  rest: { method: 'DELETE', path: '/v1/vector-collections/{collection_key}' },
  responseKey: 'vector_collection',
  handler: async (ctx, input) => {
    const row = await requireCollection(ctx, input.collection_key);
    if (row.status === 'archived') {
      ctx.audit({ targetType: 'vector_collection', targetId: row.id, changedFields: [] });
      return { body: { vector_collection: toCollection(row) } };
    }
    const changes = { status: 'archived' as const, archived_at: ctx.now, updated_at: ctx.now };
    await setCollectionStatus(ctx.db, ctx.workspaceId, row.id, changes);
    dropIndex(ctx.workspaceId, row.id);
    const collection = toCollection({ ...row, ...changes });
    ctx.audit({
      targetType: 'vector_collection',
      targetId: row.id,
      changedFields: ['status', 'archived_at'],
    });
    ctx.emit({
      name: 'vector_collection.archived',
      targetType: 'vector_collection',
      targetId: row.id,
      data: collection,
    });
    return { body: { vector_collection: collection } };
  },
});
