// Queries of agent definitions and their versions.
import { type Kysely, sql } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows, updateRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { Agent, AgentVersion } from './agent-grid-schemas.ts';
import { parseJson } from './agent-grid-shared.ts';
import type {
  AgentDefinitionsTable,
  AgentDefinitionVersionsTable,
  AgentStatus,
} from './agent-grid-tables.ts';

export function toAgent(row: AgentDefinitionsTable): Agent {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    model: row.model,
    tools: parseJson<string[]>(row.tools),
    metadata: parseJson(row.metadata),
    status: row.status,
    latest_version: Number(row.latest_version),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toAgentVersion(row: AgentDefinitionVersionsTable): AgentVersion {
  return {
    id: row.id,
    agent_id: row.agent_id,
    version: Number(row.version),
    key: row.key,
    name: row.name,
    description: row.description,
    instructions: row.instructions,
    model: row.model,
    tools: parseJson<string[]>(row.tools),
    changelog: row.changelog,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findAgent = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'agent_definitions', workspaceId, id);

export const findAgentByKey = (db: Kysely<DB>, workspaceId: string, key: string) =>
  db
    .selectFrom('agent_definitions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('key', '=', key)
    .executeTakeFirst();

export const insertAgent = (db: Kysely<DB>, row: AgentDefinitionsTable) =>
  insertRows(db, 'agent_definitions', row);

export const updateAgentRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AgentDefinitionsTable>,
) => updateRow(db, 'agent_definitions', workspaceId, id, changes);

export async function listAgents(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: AgentStatus; key?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('agent_definitions').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.key) query = query.where('key', '=', filters.key);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toAgent) };
}

export const findAgentVersion = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'agent_definition_versions', workspaceId, id);

/** An agent's version by number, or its latest one when version is undefined. */
export function findAgentVersionByNumber(
  db: Kysely<DB>,
  workspaceId: string,
  agentId: string,
  version: number | undefined,
) {
  let query = db
    .selectFrom('agent_definition_versions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('agent_id', '=', agentId);
  query = version === undefined ? query.orderBy('version', 'desc') : query.where('version', '=', version);
  return query.limit(1).executeTakeFirst();
}

export const insertAgentVersion = (db: Kysely<DB>, row: AgentDefinitionVersionsTable) =>
  insertRows(db, 'agent_definition_versions', row);

export async function listAgentVersions(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { agent_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('agent_definition_versions').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.agent_id) query = query.where('agent_id', '=', filters.agent_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toAgentVersion) };
}

/**
 * The next number of a counter column of one row (a version, a sequence), by one atomic UPDATE ... RETURNING:
 * on PostgreSQL the row stays locked until the call commits, so concurrent creates take turns and never
 * share a number (the unique constraint on the numbered rows is the backstop); SQLite has one writer.
 */
export async function bumpCounter(
  db: Kysely<DB>,
  table: 'agent_definitions' | 'agent_workflows' | 'agent_sessions',
  column: 'latest_version' | 'item_count',
  workspaceId: string,
  id: string,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const row = await db
    .updateTable(table as 'agent_sessions')
    .set({ [column]: sql`${sql.ref(column)} + 1`, ...extra } as never)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .returning(sql<number>`${sql.ref(column)}`.as('value'))
    .executeTakeFirstOrThrow();
  return Number(row.value);
}
