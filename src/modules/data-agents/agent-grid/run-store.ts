// Queries of Agent Grid runs and their children (tool calls, retrieval hits, cost events), and the totals a
// run keeps equal to the sums over its children.
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import type { Dialect } from '../../../db/database.ts';
import { insertRows, updateRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { CostEvent, RetrievalHit, Run, ToolCall } from './agent-grid-schemas.ts';
import { parseJson } from './agent-grid-shared.ts';
import type {
  AgentGridCostEventsTable,
  AgentGridRetrievalHitsTable,
  AgentGridRunsTable,
  AgentGridToolCallsTable,
} from './agent-grid-tables.ts';

export function toRun(row: AgentGridRunsTable): Run {
  const started = row.started_at ? Date.parse(row.started_at) : null;
  return {
    id: row.id,
    agent_id: row.agent_id,
    agent_version_id: row.agent_version_id,
    workflow_id: row.workflow_id,
    workflow_version_id: row.workflow_version_id,
    session_id: row.session_id,
    parent_run_id: row.parent_run_id,
    status: row.status,
    input: parseJson(row.input),
    output: row.output === null ? null : parseJson(row.output),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    metadata: parseJson(row.metadata),
    totals: {
      tool_calls: Number(row.tool_calls),
      retrieval_hits: Number(row.retrieval_hits),
      cost_events: Number(row.cost_events),
      tokens_in: Number(row.tokens_in),
      tokens_out: Number(row.tokens_out),
      cost_micros: Number(row.cost_micros),
      currency: row.currency,
    },
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: started !== null && row.finished_at ? Date.parse(row.finished_at) - started : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toToolCall(row: AgentGridToolCallsTable): ToolCall {
  return {
    id: row.id,
    run_id: row.run_id,
    tool: row.tool,
    registry_tool: Boolean(Number(row.registry_tool)),
    arguments: parseJson(row.arguments),
    status: row.status,
    error_code: row.error_code,
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    result_summary: row.result_summary,
    request_id: row.request_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toRetrievalHit(row: AgentGridRetrievalHitsTable): RetrievalHit {
  return {
    id: row.id,
    run_id: row.run_id,
    collection_key: row.collection_key,
    document_id: row.document_id,
    score: Number(row.score),
    rank: row.rank === null ? null : Number(row.rank),
    query: row.query,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toCostEvent(row: AgentGridCostEventsTable): CostEvent {
  return {
    id: row.id,
    run_id: row.run_id,
    kind: row.kind,
    model: row.model,
    tool_call_id: row.tool_call_id,
    tokens_in: Number(row.tokens_in),
    tokens_out: Number(row.tokens_out),
    units: Number(row.units),
    cost_micros: Number(row.cost_micros),
    currency: row.currency,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A run by ID. `lockOn: 'postgres'` locks its row until the call commits, so children of one run recompute
 * its totals one after another (each sees the others' rows); SQLite's one writer already serializes them.
 */
export function findRun(db: Kysely<DB>, workspaceId: string, id: string, lockOn?: Dialect) {
  return db
    .selectFrom('agent_grid_runs')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .$if(lockOn === 'postgres', (query) => query.forUpdate())
    .executeTakeFirst();
}

export const insertRun = (db: Kysely<DB>, row: AgentGridRunsTable) => insertRows(db, 'agent_grid_runs', row);

export const updateRunRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AgentGridRunsTable>,
) => updateRow(db, 'agent_grid_runs', workspaceId, id, changes);

export type ChildKind = 'tool_calls' | 'retrieval_hits' | 'cost_events';

/** The run's totals over the children of one kind, from their rows (the run row is locked meanwhile). */
export async function childTotals(
  db: Kysely<DB>,
  workspaceId: string,
  runId: string,
  kind: ChildKind,
): Promise<Partial<AgentGridRunsTable>> {
  if (kind === 'cost_events') {
    const row = await db
      .selectFrom('agent_grid_cost_events')
      .select((eb) => [
        eb.fn.countAll<number>().as('n'),
        eb.fn.coalesce(eb.fn.sum<number>('tokens_in'), eb.lit(0)).as('tokens_in'),
        eb.fn.coalesce(eb.fn.sum<number>('tokens_out'), eb.lit(0)).as('tokens_out'),
        eb.fn.coalesce(eb.fn.sum<number>('cost_micros'), eb.lit(0)).as('cost_micros'),
      ])
      .where('workspace_id', '=', workspaceId)
      .where('run_id', '=', runId)
      .executeTakeFirstOrThrow();
    return {
      cost_events: Number(row.n),
      tokens_in: Number(row.tokens_in),
      tokens_out: Number(row.tokens_out),
      cost_micros: Number(row.cost_micros),
    };
  }
  const table = kind === 'tool_calls' ? 'agent_grid_tool_calls' : 'agent_grid_retrieval_hits';
  const row = await db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return { [kind]: Number(row.n) };
}

export interface RunFilters {
  agent_id?: string;
  agent_version_id?: string;
  workflow_id?: string;
  workflow_version_id?: string;
  session_id?: string;
  parent_run_id?: string;
  status?: AgentGridRunsTable['status'];
}

const RUN_FILTERS = [
  'agent_id',
  'agent_version_id',
  'workflow_id',
  'workflow_version_id',
  'session_id',
  'parent_run_id',
  'status',
] as const;

export async function listRuns(db: Kysely<DB>, workspaceId: string, filters: RunFilters, page: PageRequest) {
  let query = db.selectFrom('agent_grid_runs').selectAll().where('workspace_id', '=', workspaceId);
  for (const name of RUN_FILTERS) {
    const value = filters[name];
    if (value !== undefined) query = query.where(name, '=', value);
  }
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toRun) };
}

export const insertToolCall = (db: Kysely<DB>, row: AgentGridToolCallsTable) =>
  insertRows(db, 'agent_grid_tool_calls', row);
export const insertRetrievalHit = (db: Kysely<DB>, row: AgentGridRetrievalHitsTable) =>
  insertRows(db, 'agent_grid_retrieval_hits', row);
export const insertCostEvent = (db: Kysely<DB>, row: AgentGridCostEventsTable) =>
  insertRows(db, 'agent_grid_cost_events', row);

/** A page of one kind of child, newest first, with equality filters on the given columns. */
export async function listChildren<
  T extends 'agent_grid_tool_calls' | 'agent_grid_retrieval_hits' | 'agent_grid_cost_events',
>(
  db: Kysely<DB>,
  table: T,
  workspaceId: string,
  filters: Record<string, string | undefined>,
  page: PageRequest,
): Promise<{ items: DB[T][]; next_cursor?: string }> {
  let query = db
    .selectFrom(table as 'agent_grid_tool_calls')
    .selectAll()
    .where('workspace_id', '=', workspaceId);
  for (const [column, value] of Object.entries(filters)) {
    if (value !== undefined) query = query.where(column as 'run_id', '=', value);
  }
  return (await fetchPage(query, page)) as { items: DB[T][]; next_cursor?: string };
}

/** The call events of a request in this workspace: the route or tool it called. */
export function requestRoutes(db: Kysely<DB>, workspaceId: string, requestId: string) {
  return db
    .selectFrom('call_events')
    .select(['route', 'kind'])
    .where('workspace_id', '=', workspaceId)
    .where('request_id', '=', requestId)
    .execute();
}

export const findToolCall = (db: Kysely<DB>, workspaceId: string, id: string) =>
  db
    .selectFrom('agent_grid_tool_calls')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
