import { Type } from '@sinclair/typebox';
import { sha256Hex } from '../../../core/canonical-json.ts';
import {
  diffFields,
  inputFields,
  mergedJson,
  requireSomeField,
  withoutNulls,
} from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { requireActive, requireCollection } from '../vectors/collections.ts';
import { agentStatuses, MemorySchema, memoryScopes } from './agent-grid-schemas.ts';
import { idInput, metadataInput } from './agent-grid-shared.ts';
import type { AgentMemoriesTable, AgentMemoryEmbeddingsTable, MemoryScope } from './agent-grid-tables.ts';
import { findAgent } from './agent-store.ts';
import { syncMemoryDocuments } from './memory-documents.ts';
import { embedNow, vectorCollectionOf } from './memory-embedder.ts';
import {
  embeddingsOfMemory,
  findMemory,
  insertEmbedding,
  insertMemory,
  listMemories,
  toEmbedding,
  toMemory,
  updateEmbeddingRow,
  updateMemoryRow,
} from './memory-store.ts';
import { findSession } from './session-store.ts';

export const memoryRecord = defineRecordType({
  type: 'agent_memory',
  module: 'data_agents',
  table: 'agent_memories',
  collection: '/v1/agent-grid/memories',
  key: 'memory',
  readScope: 'data_agents:read',
  schema: MemorySchema,
  toResource: toMemory,
});

const contentInput = Type.String({ minLength: 1, maxLength: 20_000 });
const importanceInput = Type.Number({ minimum: 0, maximum: 1 });
const expiresInput = Type.String({
  format: 'date-time',
  description: 'After it, lists leave the memory out.',
});

/** The scope's ID as stored: '' for workspace; an agent or session of this workspace; any user ID. */
async function scopeIdOf(
  ctx: OperationContext,
  scope: MemoryScope,
  scopeId: string | undefined,
): Promise<string> {
  if (scope === 'workspace') {
    if (scopeId !== undefined) {
      throw validationFailed([{ field: 'scope_id', message: 'is not used with scope workspace' }]);
    }
    return '';
  }
  if (!scopeId) throw validationFailed([{ field: 'scope_id', message: `is required with scope ${scope}` }]);
  if (scope === 'agent' && !(await findAgent(ctx.db, ctx.workspaceId, scopeId)))
    throw notFound('agent definition');
  if (scope === 'session' && !(await findSession(ctx.db, ctx.workspaceId, scopeId)))
    throw notFound('agent session');
  return scopeId;
}

function checkExpiry(ctx: OperationContext, expiresAt: string | null | undefined) {
  if (expiresAt && Date.parse(expiresAt) <= Date.parse(ctx.now)) {
    throw validationFailed([{ field: 'expires_at', message: 'must be in the future' }]);
  }
}

export const createAgentMemory = defineOperation({
  name: 'create_agent_memory',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_memory',
  summary: 'Remember something for agents',
  description:
    'Stores a memory: content, a scope (workspace; agent, session or user with scope_id: an agent or session of this workspace, or your user ID), importance 0..1 (default 0.5) and an optional expiry. With collection_key (a vector collection with an embedder) it is embedded too: builtin at once, external by a job after the call (pending until then); the vector becomes a document of the collection (ID = memory ID), so search_vector_collection finds it. Emits agent_memory.created and agent_memory_embedding.created.',
  input: Strict({
    scope: Type.Optional(Enum(memoryScopes, { description: 'Default workspace.' })),
    scope_id: Type.Optional(idInput()),
    content: contentInput,
    importance: Type.Optional(importanceInput),
    expires_at: Type.Optional(expiresInput),
    metadata: Type.Optional(metadataInput()),
    collection_key: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'An active vector collection to embed it in.',
      }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/memories' },
  responseKey: 'memory',
  handler: async (ctx, input) => {
    const scope = input.scope ?? 'workspace';
    const scopeId = await scopeIdOf(ctx, scope, input.scope_id);
    checkExpiry(ctx, input.expires_at);
    const collection = input.collection_key ? await requireCollection(ctx, input.collection_key) : undefined;
    if (collection) requireActive(collection);
    const row: AgentMemoriesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('amem'),
      scope,
      scope_id: scopeId,
      content: input.content,
      content_sha256: sha256Hex(input.content),
      importance: input.importance ?? 0.5,
      expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : null,
      status: 'active',
      metadata: JSON.stringify(withoutNulls(input.metadata)),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertMemory(ctx.db, row);
    const memory = toMemory(row);
    ctx.audit({ targetType: 'agent_memory', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'agent_memory.created', targetType: 'agent_memory', targetId: row.id, data: memory });
    if (collection) {
      const shell: AgentMemoryEmbeddingsTable = {
        workspace_id: ctx.workspaceId,
        id: newId('aemb'),
        memory_id: row.id,
        collection_key: collection.key,
        model: null,
        dimension: Number(collection.dimension),
        vector: null,
        content_sha256: null,
        status: 'pending',
        error_message: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      };
      const embedding = { ...shell, ...(await embedNow(ctx, row, collection, shell)) };
      await insertEmbedding(ctx.db, embedding);
      ctx.audit({
        targetType: 'agent_memory_embedding',
        targetId: embedding.id,
        changedFields: ['memory_id', 'collection_key'],
      });
      ctx.emit({
        name: 'agent_memory_embedding.created',
        targetType: 'agent_memory_embedding',
        targetId: embedding.id,
        data: toEmbedding(embedding, false),
      });
    }
    return { body: { memory }, createdId: row.id };
  },
});

export const listAgentMemories = defineOperation({
  name: 'list_agent_memories',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List agent memories',
  description:
    'Lists memories, newest first: active and unexpired unless asked otherwise; filter by scope and scope_id (an agent, session or user) to load what an agent should remember.',
  input: Strict({
    scope: Type.Optional(Enum(memoryScopes)),
    scope_id: Type.Optional(idInput()),
    status: Type.Optional(Enum(agentStatuses, { description: 'Default active.' })),
    include_expired: Type.Optional(Type.Boolean({ description: 'Default false.' })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/memories' },
  // The scope index serves scope + scope_id; a scope_id alone (or a scope of many IDs) is checked row by row.
  heavy: (input) =>
    Boolean(input.scope_id && !input.scope) ||
    Boolean(input.scope && input.scope !== 'workspace' && !input.scope_id),
  responseKey: 'memories',
  handler: async (ctx, input) => {
    const filters = input.scope === 'workspace' ? { ...input, scope_id: '' } : input;
    const page = await listMemories(
      ctx.db,
      ctx.workspaceId,
      filters,
      ctx.now,
      pageRequest('list_agent_memories', input),
    );
    return { body: listBody('memories', page) };
  },
});

const MEMORY_FIELDS = ['content', 'importance', 'expires_at', 'status', 'metadata'] as const;

export const updateAgentMemory = defineOperation({
  name: 'update_agent_memory',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  summary: 'Edit or archive a memory',
  description:
    "Changes a memory's content, importance, expiry (null: never), status (archived: left out of lists and removed from vector collections; active again: written back) or metadata (merged). New content keeps its embeddings in step: in a collection with the builtin embedder they are re-embedded in the same call, with an external one they go stale and a job re-embeds them, others go stale (send a new vector with update_agent_memory_embedding). Emits agent_memory.updated, and agent_memory_embedding.updated for each embedding changed.",
  input: Strict({
    memory_id: idInput(),
    content: Type.Optional(contentInput),
    importance: Type.Optional(importanceInput),
    expires_at: Type.Optional(Type.Union([expiresInput, Type.Null()])),
    status: Type.Optional(Enum(agentStatuses)),
    metadata: Type.Optional(metadataInput('Merged; null removes a key.')),
  }),
  rest: { method: 'PATCH', path: '/v1/agent-grid/memories/{memory_id}' },
  responseKey: 'memory',
  handler: async (ctx, input) => {
    requireSomeField(input, MEMORY_FIELDS);
    const row = await findMemory(ctx.db, ctx.workspaceId, input.memory_id);
    if (!row) throw notFound('agent memory');
    checkExpiry(ctx, input.expires_at);
    const { changes, changed } = diffFields(
      row,
      {
        ...input,
        expires_at: input.expires_at ? new Date(input.expires_at).toISOString() : input.expires_at,
        metadata: mergedJson(row.metadata, input.metadata),
      },
      MEMORY_FIELDS,
    );
    if (changed.length === 0) {
      ctx.audit({ targetType: 'agent_memory', targetId: row.id, changedFields: [] });
      return { body: { memory: toMemory(row) } };
    }
    const set: Partial<AgentMemoriesTable> = { ...changes, updated_at: ctx.now };
    if (changes.content !== undefined) set.content_sha256 = sha256Hex(changes.content);
    await updateMemoryRow(ctx.db, ctx.workspaceId, row.id, set);
    if (set.content_sha256) await refreshEmbeddings(ctx, { ...row, ...set });
    if (set.status) await syncMemoryDocuments(ctx, { ...row, ...set });
    const memory = toMemory({ ...row, ...set });
    ctx.audit({ targetType: 'agent_memory', targetId: row.id, changedFields: changed });
    ctx.emit({ name: 'agent_memory.updated', targetType: 'agent_memory', targetId: row.id, data: memory });
    return { body: { memory } };
  },
});

/** New content: each embedding re-embedded by its collection's embedder, or stale until a new vector comes. */
async function refreshEmbeddings(ctx: OperationContext, memory: AgentMemoriesTable) {
  for (const embedding of await embeddingsOfMemory(ctx.db, ctx.workspaceId, memory.id)) {
    if (!['ready', 'stale', 'pending'].includes(embedding.status)) continue;
    if (embedding.content_sha256 === memory.content_sha256) continue;
    const collection = await vectorCollectionOf(ctx.db, ctx.workspaceId, embedding.collection_key);
    const next =
      collection && collection.embedder !== 'none'
        ? await embedNow(ctx, memory, collection, embedding)
        : { status: embedding.vector ? ('stale' as const) : embedding.status };
    const set = { ...next, updated_at: ctx.now };
    const changed = Object.keys(next).filter(
      (f) =>
        f !== 'content_sha256' &&
        next[f as keyof typeof next] !== embedding[f as keyof AgentMemoryEmbeddingsTable],
    );
    if (changed.length === 0) continue;
    await updateEmbeddingRow(ctx.db, ctx.workspaceId, embedding.id, set);
    ctx.audit({
      targetType: 'agent_memory_embedding',
      targetId: embedding.id,
      action: 'update',
      changedFields: changed,
    });
    ctx.emit({
      name: 'agent_memory_embedding.updated',
      targetType: 'agent_memory_embedding',
      targetId: embedding.id,
      data: toEmbedding({ ...embedding, ...set }, false),
    });
  }
}
