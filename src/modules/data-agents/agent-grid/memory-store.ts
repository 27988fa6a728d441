// Queries of agent memories and their embeddings.
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows, updateRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { Memory, MemoryEmbedding } from './agent-grid-schemas.ts';
import { parseJson } from './agent-grid-shared.ts';
import type {
  AgentMemoriesTable,
  AgentMemoryEmbeddingsTable,
  AgentStatus,
  EmbeddingStatus,
  MemoryScope,
} from './agent-grid-tables.ts';

export function toMemory(row: AgentMemoriesTable): Memory {
  return {
    id: row.id,
    scope: row.scope,
    scope_id: row.scope_id === '' ? null : row.scope_id,
    content: row.content,
    importance: Number(row.importance),
    expires_at: row.expires_at,
    status: row.status,
    metadata: parseJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** float32 little-endian bytes, as stored. */
export function encodeVector(vector: readonly number[]): Buffer {
  const bytes = Buffer.alloc(vector.length * 4);
  for (const [i, value] of vector.entries()) bytes.writeFloatLE(value, i * 4);
  return bytes;
}

export function decodeVector(bytes: Uint8Array): number[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: buffer.length / 4 }, (_, i) => buffer.readFloatLE(i * 4));
}

export function toEmbedding(row: AgentMemoryEmbeddingsTable, withVector = true): MemoryEmbedding {
  return {
    id: row.id,
    memory_id: row.memory_id,
    collection_key: row.collection_key,
    model: row.model,
    dimension: Number(row.dimension),
    vector: withVector && row.vector ? decodeVector(row.vector) : null,
    status: row.status,
    error_message: row.error_message,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findMemory = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'agent_memories', workspaceId, id);

export const insertMemory = (db: Kysely<DB>, row: AgentMemoriesTable) =>
  insertRows(db, 'agent_memories', row);

export const updateMemoryRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AgentMemoriesTable>,
) => updateRow(db, 'agent_memories', workspaceId, id, changes);

export interface MemoryFilters {
  scope?: MemoryScope;
  scope_id?: string;
  status?: AgentStatus;
  include_expired?: boolean;
}

export async function listMemories(
  db: Kysely<DB>,
  workspaceId: string,
  filters: MemoryFilters,
  now: string,
  page: PageRequest,
) {
  let query = db
    .selectFrom('agent_memories')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('status', '=', filters.status ?? 'active');
  if (filters.scope) query = query.where('scope', '=', filters.scope);
  if (filters.scope_id !== undefined) query = query.where('scope_id', '=', filters.scope_id);
  if (!filters.include_expired) {
    query = query.where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]));
  }
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toMemory) };
}

export const findEmbedding = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'agent_memory_embeddings', workspaceId, id);

export const insertEmbedding = (db: Kysely<DB>, row: AgentMemoryEmbeddingsTable) =>
  insertRows(db, 'agent_memory_embeddings', row);

export const updateEmbeddingRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AgentMemoryEmbeddingsTable>,
) => updateRow(db, 'agent_memory_embeddings', workspaceId, id, changes);

/** The embeddings of a memory that hold a vector (ready or stale), for the content-change check. */
export function embeddingsOfMemory(db: Kysely<DB>, workspaceId: string, memoryId: string) {
  return db
    .selectFrom('agent_memory_embeddings')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('memory_id', '=', memoryId)
    .execute();
}

export async function listEmbeddings(
  db: Kysely<DB>,
  workspaceId: string,
  filters: {
    memory_id?: string;
    collection_key?: string;
    status?: EmbeddingStatus;
    include_vectors?: boolean;
  },
  page: PageRequest,
) {
  let query = db.selectFrom('agent_memory_embeddings').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.memory_id) query = query.where('memory_id', '=', filters.memory_id);
  if (filters.collection_key) query = query.where('collection_key', '=', filters.collection_key);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map((row) => toEmbedding(row, filters.include_vectors === true)) };
}
