// Queries of insight views. Every query filters by workspace_id; archived views are hidden from lists and
// lookups (dashboards still read them: a tile shows its view archived).
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { readSnapshot } from '../../../db/read-snapshot.ts';
import type { DB } from '../../../db/tables.ts';
import type { InsightSource } from './bi-object-schemas.ts';
import type { BiInsightViewsTable, InsightSourceType } from './bi-object-tables.ts';
import type { ViewDefinition } from './insight-view-source.ts';
import type { Measure } from './query-definition.ts';
import { type RefreshState, refreshState, refreshStates } from './refresh-state.ts';

export type InsightViewRow = BiInsightViewsTable & { state: RefreshState };

export const definitionOfView = (row: BiInsightViewsTable): ViewDefinition => ({
  source: JSON.parse(row.source) as InsightSource,
  dimensions: JSON.parse(row.dimensions) as string[],
  measures: JSON.parse(row.measures) as Measure[],
});

export function toInsightView(row: InsightViewRow) {
  return {
    id: row.id,
    name: row.name,
    question: row.question,
    ...definitionOfView(row),
    report_style: row.report_style,
    refresh_behaviour: row.state.scheduled ? ('scheduled' as const) : ('manual' as const),
    created_by: row.created_by,
    ...row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

/** A view of the workspace (archived too: callers decide), with its refresh state. */
export async function findInsightView(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
): Promise<InsightViewRow | undefined> {
  return readSnapshot(db, async (db) => {
    const row = await findInsightViewRow(db, workspaceId, id);
    return row ? { ...row, state: await refreshState(db, workspaceId, 'insight_view', row) } : undefined;
  });
}

/** The row alone, in one statement: what a heavy read looks up (heavy connections open no transactions). */
export function findInsightViewRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
): Promise<BiInsightViewsTable | undefined> {
  return db
    .selectFrom('bi_insight_views')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertInsightView(db: Kysely<DB>, row: BiInsightViewsTable): Promise<void> {
  await db.insertInto('bi_insight_views').values(row).execute();
}

export async function updateInsightViewRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiInsightViewsTable>,
): Promise<void> {
  await db
    .updateTable('bi_insight_views')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export async function listInsightViews(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { source_type?: InsightSourceType },
  page: PageRequest,
) {
  const { result, states } = await readSnapshot(db, async (db) => {
    let query = db
      .selectFrom('bi_insight_views')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('archived_at', 'is', null);
    if (filters.source_type) query = query.where('source_type', '=', filters.source_type);
    const result = await fetchPage(query, page);
    return { result, states: await refreshStates(db, workspaceId, 'insight_view', result.items) };
  });
  return {
    ...result,
    items: result.items.map((r) => toInsightView({ ...r, state: states.get(r.id)! })),
  };
}
