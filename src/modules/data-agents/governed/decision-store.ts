import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentDecisionsTable } from './governed-tables.ts';
import { parseRefs } from './object-refs.ts';
import type { DecisionSchema, DecisionStatus } from './records-schemas.ts';

export type Decision = Static<typeof DecisionSchema>;

export function toDecision(row: DataAgentDecisionsTable): Decision {
  return {
    id: row.id,
    title: row.title,
    context: row.context,
    options: JSON.parse(row.options),
    chosen_option: row.chosen_option,
    rationale: row.rationale,
    subject: row.subject_type && row.subject_id ? { type: row.subject_type, id: row.subject_id } : null,
    related_objects: parseRefs(row.related_objects),
    supersedes_id: row.supersedes_id,
    superseded_by_id: row.superseded_by_id,
    status: row.status as DecisionStatus,
    decision_note: row.decision_note,
    decided_at: row.decided_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findDecision = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_decisions', workspaceId, id);

export const insertDecision = (db: Kysely<DB>, row: DataAgentDecisionsTable) =>
  insertRows(db, 'data_agent_decisions', row);

export interface DecisionFilters {
  status?: string;
  subject_type?: string;
  subject_id?: string;
}

export async function listDecisions(
  db: Kysely<DB>,
  workspaceId: string,
  filters: DecisionFilters,
  page: PageRequest,
) {
  let query = db.selectFrom('data_agent_decisions').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.subject_type) query = query.where('subject_type', '=', filters.subject_type);
  if (filters.subject_id) query = query.where('subject_id', '=', filters.subject_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toDecision) };
}
