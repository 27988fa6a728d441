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
import { agentStatuses, MemorySchema, memoryScopes } from './agent-grid-schemas.ts';
import { idInput, metadataInput } from './agent-grid-shared.ts';
import type { AgentMemoriesTable, MemoryScope } from './agent-grid-tables.ts';
import { findAgent } from './agent-store.ts';
import {
  embeddingsOfMemory,
  findMemory,
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
    'Stores a memory: content, a scope (workspace; agent, session or user with scope_id: an agent or session of this workspace, or your user ID), importance 0..1 (default 0.5) and an optional expiry. Attach vectors with create_agent_memory_embedding. Emits agent_memory.created.',
  input: Strict({
    scope: Type.Optional(Enum(memoryScopes, { description: 'Default workspace.' })),
    scope_id: Type.Optional(idInput()),
    content: contentInput,
    importance: Type.Optional(importanceInput),
    expires_at: Type.Optional(expiresInput),
    metadata: Type.Optional(metadataInput()),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/memories' },
  responseKey: 'memory',
  handler: async (ctx, input) => {
    const scope = input.scope ?? 'workspace';
    const scopeId = await scopeIdOf(ctx, scope, input.scope_id);
    checkExpiry(ctx, input.expires_at);
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
    "Changes a memory's content, importance, expiry (null: never), status (archived: left out of lists) or metadata (merged). New content marks the memory's ready embeddings stale in the same call (their vectors were made from the old text; send new ones with update_agent_memory_embedding). Emits agent_memory.updated, and agent_memory_embedding.updated for each embedding made stale.",
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
    if (set.content_sha256) await markStale(ctx, row.id, set.content_sha256);
    const memory = toMemory({ ...row, ...set });
    ctx.audit({ targetType: 'agent_memory', targetId: row.id, changedFields: changed });
    ctx.emit({ name: 'agent_memory.updated', targetType: 'agent_memory', targetId: row.id, data: memory });
    return { body: { memory } };
  },
});

/** Embeddings made from other content than the memory's now are stale (pending ones wait for a vector). */
async function markStale(ctx: OperationContext, memoryId: string, contentSha256: string) {
  for (const embedding of await embeddingsOfMemory(ctx.db, ctx.workspaceId, memoryId)) {
    if (embedding.status !== 'ready' || embedding.content_sha256 === contentSha256) continue;
    const set = { status: 'stale' as const, updated_at: ctx.now };
    await updateEmbeddingRow(ctx.db, ctx.workspaceId, embedding.id, set);
    ctx.audit({
      targetType: 'agent_memory_embedding',
      targetId: embedding.id,
      action: 'update',
      changedFields: ['status'],
    });
    ctx.emit({
      name: 'agent_memory_embedding.updated',
      targetType: 'agent_memory_embedding',
      targetId: embedding.id,
      data: toEmbedding({ ...embedding, ...set }, false),
    });
  }
}
