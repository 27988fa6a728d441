// Queries of saved reports. Every query filters by workspace_id; archived reports are hidden from lists
// and lookups, but dashboards still read them (a tile shows its target archived).
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { readSnapshot } from '../../../db/read-snapshot.ts';
import type { DB } from '../../../db/tables.ts';
import type { BiReportsTable } from './bi-object-tables.ts';
import type { QueryDefinition } from './query-definition.ts';
import { type RefreshState, refreshState, refreshStates } from './refresh-state.ts';

export type ReportRow = BiReportsTable & { state: RefreshState };

export function toBiReport(row: ReportRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    dataset_key: row.dataset_key,
    query: JSON.parse(row.definition) as QueryDefinition,
    visualization: row.visualization,
    created_by: row.created_by,
    ...row.state,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}
export type BiReport = ReturnType<typeof toBiReport>;

/** A report of the workspace (archived too: callers decide), with its refresh state. */
export async function findReport(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
): Promise<ReportRow | undefined> {
  return readSnapshot(db, async (db) => {
    const row = await findReportRow(db, workspaceId, id);
    return row ? { ...row, state: await refreshState(db, workspaceId, 'report', row) } : undefined;
  });
}

/** The row alone, in one statement: what a heavy read looks up (heavy connections open no transactions). */
export function findReportRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
): Promise<BiReportsTable | undefined> {
  return db
    .selectFrom('bi_reports')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function insertReport(db: Kysely<DB>, row: BiReportsTable): Promise<void> {
  await db.insertInto('bi_reports').values(row).execute();
}

export async function updateReportRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiReportsTable>,
): Promise<void> {
  await db
    .updateTable('bi_reports')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export async function listReports(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { dataset_key?: string },
  page: PageRequest,
) {
  const { result, states } = await readSnapshot(db, async (db) => {
    let query = db
      .selectFrom('bi_reports')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('archived_at', 'is', null);
    if (filters.dataset_key) query = query.where('dataset_key', '=', filters.dataset_key);
    const result = await fetchPage(query, page);
    return { result, states: await refreshStates(db, workspaceId, 'report', result.items) };
  });
  return { ...result, items: result.items.map((r) => toBiReport({ ...r, state: states.get(r.id)! })) };
}
