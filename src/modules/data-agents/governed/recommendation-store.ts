import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentRecommendationsTable } from './governed-tables.ts';
import { parseRefs } from './object-refs.ts';
import type { RecommendationSchema, RecommendationStatus } from './records-schemas.ts';

export type Recommendation = Static<typeof RecommendationSchema>;

export function toRecommendation(row: DataAgentRecommendationsTable): Recommendation {
  return {
    id: row.id,
    title: row.title,
    rationale: row.rationale,
    evidence: parseRefs(row.evidence),
    action: { tool: row.action_tool, arguments: JSON.parse(row.action_arguments) },
    status: row.status as RecommendationStatus,
    decision_note: row.decision_note,
    decided_at: row.decided_at,
    execution: row.execution_request_id
      ? {
          request_id: row.execution_request_id,
          execute_request_id: row.execute_request_id ?? row.execution_request_id,
          status: row.execution_status,
          result: row.execution_result === null ? null : JSON.parse(row.execution_result),
          started_at: row.execution_started_at,
          finished_at: row.executed_at,
        }
      : null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findRecommendation = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_recommendations', workspaceId, id);

export const insertRecommendation = (db: Kysely<DB>, row: DataAgentRecommendationsTable) =>
  insertRows(db, 'data_agent_recommendations', row);

/**
 * Claims a recommendation for execution (status executing, this request's ID) when it is still in `from`
 * and, for a stale claim taken over, still held by `heldBy`: of two concurrent executes one claims it.
 */
export async function claimExecution(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  from: { status: string; heldBy: string | null },
  claim: { executeRequestId: string; actionRequestId: string; now: string },
): Promise<boolean> {
  let query = db
    .updateTable('data_agent_recommendations')
    .set({
      status: 'executing',
      execute_request_id: claim.executeRequestId,
      execution_request_id: claim.actionRequestId,
      execution_started_at: claim.now,
      execution_status: null,
      execution_result: null,
      executed_at: null,
      updated_at: claim.now,
    })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', '=', from.status);
  if (from.heldBy) query = query.where('execution_request_id', '=', from.heldBy);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Records how the action call ended, when this action call still holds the claim. */
export async function finishExecution(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  actionRequestId: string,
  outcome: Partial<DataAgentRecommendationsTable>,
): Promise<boolean> {
  const result = await db
    .updateTable('data_agent_recommendations')
    .set(outcome)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('status', '=', 'executing')
    .where('execution_request_id', '=', actionRequestId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listRecommendations(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: string; tool?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('data_agent_recommendations').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.tool) query = query.where('action_tool', '=', filters.tool);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toRecommendation) };
}
