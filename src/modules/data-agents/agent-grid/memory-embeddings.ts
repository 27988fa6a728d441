import { Type } from '@sinclair/typebox';
import { inputFields, requireSomeField } from '../../../core/changes.ts';
import { uniquely } from '../../../core/db-errors.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { embeddingStatuses, MemoryEmbeddingSchema } from './agent-grid-schemas.ts';
import { conflictWith, idInput } from './agent-grid-shared.ts';
import type { AgentMemoryEmbeddingsTable } from './agent-grid-tables.ts';
import {
  checkCollectionDimension,
  embedNow,
  vectorCollectionOf,
  writeMemoryDocument,
} from './memory-embedder.ts';
import {
  encodeVector,
  findEmbedding,
  findMemory,
  insertEmbedding,
  listEmbeddings,
  toEmbedding,
  updateEmbeddingRow,
} from './memory-store.ts';

export const embeddingRecord = defineRecordType({
  type: 'agent_memory_embedding',
  module: 'data_agents',
  table: 'agent_memory_embeddings',
  collection: '/v1/agent-grid/memory-embeddings',
  key: 'memory_embedding',
  readScope: 'data_agents:read',
  schema: MemoryEmbeddingSchema,
  toResource: (row: AgentMemoryEmbeddingsTable) => toEmbedding(row),
});

const MAX_DIMENSION = 4096;
const vectorInput = Type.Array(Type.Number(), {
  minItems: 1,
  maxItems: MAX_DIMENSION,
  description: 'Exactly dimension finite numbers; stored as float32.',
  examples: [[0.5, -0.25, 0.125]],
});
const modelInput = Type.String({ minLength: 1, maxLength: 200 });

/** field_errors of a vector that is not `dimension` finite numbers. */
function vectorErrors(vector: readonly number[], dimension: number): FieldError[] {
  if (vector.length !== dimension) {
    return [{ field: 'vector', message: `has ${vector.length} values; the dimension is ${dimension}` }];
  }
  const bad = vector.findIndex((value) => !Number.isFinite(value) || Math.abs(value) > 3.4e38);
  return bad < 0 ? [] : [{ field: `vector[${bad}]`, message: 'must be a finite float32 number' }];
}

export const createAgentMemoryEmbedding = defineOperation({
  name: 'create_agent_memory_embedding',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  example: { model: 'text-embedding-3-small', dimension: 3, vector: [0.12, -0.08, 0.31] },
  creates: 'agent_memory_embedding',
  summary: 'Attach an embedding to a memory',
  description:
    "Stores the embedding of an active memory in a collection (one per memory and collection): the model, the dimension and the vector (exactly dimension finite numbers), made from the memory's current content; status ready. collection_key may name a vector collection of this workspace (its dimension applies, and the vector becomes its document with the memory's ID) or a store of your own. Without a vector, a vector collection's embedder embeds the memory (builtin now, external by a job); otherwise it is pending until update_agent_memory_embedding sends one. Emits agent_memory_embedding.created.",
  input: Strict({
    memory_id: idInput(),
    collection_key: Type.String({ minLength: 1, maxLength: 200, examples: ['agent_memories'] }),
    model: Type.Optional(modelInput),
    dimension: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MAX_DIMENSION, description: 'Default: the vector length.' }),
    ),
    vector: Type.Optional(vectorInput),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/memory-embeddings' },
  responseKey: 'memory_embedding',
  handler: async (ctx, input) => {
    const collection = await vectorCollectionOf(ctx.db, ctx.workspaceId, input.collection_key, 'refuse');
    const dimension = input.dimension ?? input.vector?.length ?? (collection && Number(collection.dimension));
    if (dimension === undefined) {
      throw validationFailed([{ field: 'dimension', message: 'is required without a vector' }]);
    }
    if (input.vector) {
      const errors = vectorErrors(input.vector, dimension);
      if (errors.length) throw validationFailed(errors);
    }
    checkCollectionDimension(collection, dimension);
    const memory = await findMemory(ctx.db, ctx.workspaceId, input.memory_id);
    if (!memory) throw notFound('agent memory');
    if (memory.status !== 'active') throw conflictWith('agent memory', memory.id, memory.status);
    let row: AgentMemoryEmbeddingsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('aemb'),
      memory_id: memory.id,
      collection_key: input.collection_key,
      model: input.model ?? null,
      dimension,
      vector: input.vector ? encodeVector(input.vector) : null,
      content_sha256: input.vector ? memory.content_sha256 : null,
      status: input.vector ? 'ready' : 'pending',
      error_message: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    if (collection && row.vector) await writeMemoryDocument(ctx, memory, collection, row.vector);
    else if (collection) row = { ...row, ...(await embedNow(ctx, memory, collection, row)) };
    await uniquely(
      () => insertEmbedding(ctx.db, row),
      'collection_key',
      'the memory already has an embedding in this collection; update it instead',
    );
    const embedding = toEmbedding(row);
    ctx.audit({ targetType: 'agent_memory_embedding', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_memory_embedding.created',
      targetType: 'agent_memory_embedding',
      targetId: row.id,
      data: toEmbedding(row, false),
    });
    return { body: { memory_embedding: embedding }, createdId: row.id };
  },
});

export const listAgentMemoryEmbeddings = defineOperation({
  name: 'list_agent_memory_embeddings',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List memory embeddings',
  description:
    'Lists memory embeddings, newest first; filter by memory, collection_key or status (pending and stale ones need a new vector). Vectors are left out (null) unless include_vectors is true.',
  input: Strict({
    memory_id: Type.Optional(idInput()),
    collection_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Enum(embeddingStatuses)),
    include_vectors: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/memory-embeddings' },
  heavy: heavyFilters({ indexed: ['memory_id', 'collection_key', 'status'] }),
  responseKey: 'memory_embeddings',
  handler: async (ctx, input) => {
    const page = await listEmbeddings(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_memory_embeddings', input),
    );
    return { body: listBody('memory_embeddings', page) };
  },
});

const EMBEDDING_FIELDS = ['vector', 'model', 'status', 'error_message'] as const;

export const updateAgentMemoryEmbedding = defineOperation({
  name: 'update_agent_memory_embedding',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  summary: 'Replace or retire a memory embedding',
  description:
    "Sends a new vector (exactly the embedding's dimension; made from the memory's current content: status ready), a model, or a status: failed (with error_message), archived, or pending. Use it for pending and stale embeddings. Emits agent_memory_embedding.updated.",
  input: Strict({
    embedding_id: idInput(),
    vector: Type.Optional(vectorInput),
    model: Type.Optional(modelInput),
    status: Type.Optional(Enum(['pending', 'failed', 'archived'] as const)),
    error_message: Type.Optional(Type.String({ maxLength: 2000, description: 'With status failed.' })),
  }),
  rest: { method: 'PATCH', path: '/v1/agent-grid/memory-embeddings/{embedding_id}' },
  responseKey: 'memory_embedding',
  handler: async (ctx, input) => {
    requireSomeField(input, EMBEDDING_FIELDS);
    if (input.vector && input.status) {
      throw validationFailed([
        { field: 'status', message: 'a new vector makes the embedding ready; send one of them' },
      ]);
    }
    if (input.error_message !== undefined && input.status !== 'failed') {
      throw validationFailed([{ field: 'error_message', message: 'is only sent with status failed' }]);
    }
    const row = await findEmbedding(ctx.db, ctx.workspaceId, input.embedding_id);
    if (!row) throw notFound('agent memory embedding');
    const set: Partial<AgentMemoryEmbeddingsTable> = {};
    const memory = await findMemory(ctx.db, ctx.workspaceId, row.memory_id);
    if (input.vector) {
      const errors = vectorErrors(input.vector, Number(row.dimension));
      if (errors.length) throw validationFailed(errors);
      set.vector = encodeVector(input.vector);
      set.content_sha256 = memory?.content_sha256 ?? null;
      set.status = 'ready';
      set.error_message = null;
    }
    if (input.model !== undefined && input.model !== row.model) set.model = input.model;
    if (input.status && input.status !== row.status) {
      set.status = input.status;
      set.error_message = input.status === 'failed' ? (input.error_message ?? null) : null;
    }
    const changed = Object.keys(set).filter((field) => {
      const before = row[field as keyof AgentMemoryEmbeddingsTable];
      const after = set[field as keyof AgentMemoryEmbeddingsTable];
      return Buffer.isBuffer(after)
        ? !(before && Buffer.from(before as Uint8Array).equals(after))
        : after !== before;
    });
    if (changed.length === 0) {
      ctx.audit({ targetType: 'agent_memory_embedding', targetId: row.id, changedFields: [] });
      return { body: { memory_embedding: toEmbedding(row) } };
    }
    set.updated_at = ctx.now;
    await updateEmbeddingRow(ctx.db, ctx.workspaceId, row.id, set);
    const next = { ...row, ...set };
    // The ready vector is also the vector collection's document of the memory (memory-embedder.ts).
    const collection = set.vector && (await vectorCollectionOf(ctx.db, ctx.workspaceId, row.collection_key));
    if (collection && memory && set.vector) {
      await writeMemoryDocument(ctx, memory, collection, set.vector);
    }
    ctx.audit({
      targetType: 'agent_memory_embedding',
      targetId: row.id,
      changedFields: changed.filter((f) => f !== 'content_sha256'),
    });
    ctx.emit({
      name: 'agent_memory_embedding.updated',
      targetType: 'agent_memory_embedding',
      targetId: row.id,
      data: toEmbedding(next, false),
    });
    return { body: { memory_embedding: toEmbedding(next) } };
  },
});
