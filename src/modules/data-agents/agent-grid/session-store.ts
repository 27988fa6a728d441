// Queries of agent sessions and their items.
import type { Kysely } from 'kysely';
import { fetchKeysetPage, fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { Dialect } from '../../../db/database.ts';
import { insertRows, updateRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { Session, SessionItem } from './agent-grid-schemas.ts';
import { parseJson } from './agent-grid-shared.ts';
import type {
  AgentSessionItemsTable,
  AgentSessionsTable,
  SessionItemRole,
  SessionStatus,
} from './agent-grid-tables.ts';

export function toSession(row: AgentSessionsTable): Session {
  return {
    id: row.id,
    agent_id: row.agent_id,
    user_id: row.user_id,
    title: row.title,
    status: row.status,
    metadata: parseJson(row.metadata),
    item_count: Number(row.item_count),
    last_item_at: row.last_item_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toSessionItem(row: AgentSessionItemsTable): SessionItem {
  return {
    id: row.id,
    session_id: row.session_id,
    sequence: Number(row.sequence),
    role: row.role,
    content: row.content,
    run_id: row.run_id,
    tool_call_id: row.tool_call_id,
    metadata: parseJson(row.metadata),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A session by ID; `lockOn: 'postgres'` locks it until commit (a run or item checks it is open). */
export function findSession(db: Kysely<DB>, workspaceId: string, id: string, lockOn?: Dialect) {
  return db
    .selectFrom('agent_sessions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .$if(lockOn === 'postgres', (query) => query.forUpdate())
    .executeTakeFirst();
}

export const insertSession = (db: Kysely<DB>, row: AgentSessionsTable) =>
  insertRows(db, 'agent_sessions', row);

export const updateSessionRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AgentSessionsTable>,
) => updateRow(db, 'agent_sessions', workspaceId, id, changes);

export async function listSessions(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { agent_id?: string; user_id?: string; status?: SessionStatus },
  page: PageRequest,
) {
  let query = db.selectFrom('agent_sessions').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.agent_id) query = query.where('agent_id', '=', filters.agent_id);
  if (filters.user_id) query = query.where('user_id', '=', filters.user_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toSession) };
}

export const insertSessionItem = (db: Kysely<DB>, row: AgentSessionItemsTable) =>
  insertRows(db, 'agent_session_items', row);

/** A session's items in conversation order (sequence ascending, or descending for the latest first). */
export async function listSessionItems(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { session_id: string; role?: SessionItemRole; order?: 'asc' | 'desc' },
  page: PageRequest,
) {
  let query = db
    .selectFrom('agent_session_items')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('session_id', '=', filters.session_id);
  if (filters.role) query = query.where('role', '=', filters.role);
  const result = await fetchKeysetPage(query, page, [
    { column: 'sequence', direction: filters.order ?? 'asc', type: 'integer' },
  ]);
  return { ...result, items: result.items.map(toSessionItem) };
}

/** The first items of a session, by sequence: a service-guide session's question and answer, for a replay. */
export async function sessionItemsBySequence(
  db: Kysely<DB>,
  workspaceId: string,
  sessionId: string,
  sequences: number[],
) {
  const rows = await db
    .selectFrom('agent_session_items')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('session_id', '=', sessionId)
    .where('sequence', 'in', sequences)
    .orderBy('sequence')
    .execute();
  return rows.map(toSessionItem);
}
