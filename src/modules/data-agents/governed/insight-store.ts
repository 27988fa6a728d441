import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { newId } from '../../../core/ids.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentInsightsTable } from './governed-tables.ts';
import type { INSIGHT_STATUSES, InsightSchema } from './records-schemas.ts';

export type Insight = Static<typeof InsightSchema>;

export function toInsight(row: DataAgentInsightsTable): Insight {
  return {
    id: row.id,
    title: row.title,
    summary: row.summary,
    figures: JSON.parse(row.figures),
    status: row.status as (typeof INSIGHT_STATUSES)[number],
    published_at: row.published_at,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findInsight = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_insights', workspaceId, id);

export type Figure = Insight['figures'][number];

/**
 * Writes a draft insight: create_data_agent_insight and insight_generation execution jobs share it. The
 * caller checks the figures' sources (object-refs.ts checkRefs), audits and emits data_agent_insight.created.
 */
export async function insertDraftInsight(
  db: Kysely<DB>,
  draft: { workspaceId: string; title: string; summary: string; figures: Figure[]; now: string },
): Promise<Insight> {
  const row: DataAgentInsightsTable = {
    workspace_id: draft.workspaceId,
    id: newId('dai'),
    title: draft.title,
    summary: draft.summary,
    figures: JSON.stringify(draft.figures),
    status: 'draft',
    published_at: null,
    archived_at: null,
    created_at: draft.now,
    updated_at: draft.now,
  };
  await insertRows(db, 'data_agent_insights', row);
  return toInsight(row);
}

export async function listInsights(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('data_agent_insights').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toInsight) };
}
