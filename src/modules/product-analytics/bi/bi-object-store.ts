// Rows of the core's BI objects (datasets, metrics, saved queries) as update_bi_object and
// archive_bi_object read and change them. Every query filters by workspace_id; finds include archived rows
// (archive is idempotent; update refuses them).
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/tables.ts';
import type { BiDatasetsTable, BiMetricsTable, BiQueriesTable } from './bi-tables.ts';

export function findDatasetRow(db: Kysely<DB>, workspaceId: string, id: string) {
  return db
    .selectFrom('bi_datasets')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateDatasetRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiDatasetsTable>,
) {
  await db
    .updateTable('bi_datasets')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export function findMetricRow(db: Kysely<DB>, workspaceId: string, id: string) {
  return db
    .selectFrom('bi_metrics')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateMetricRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiMetricsTable>,
) {
  await db
    .updateTable('bi_metrics')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}

export function findQueryRow(db: Kysely<DB>, workspaceId: string, id: string) {
  return db
    .selectFrom('bi_queries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function updateQueryRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<BiQueriesTable>,
) {
  await db
    .updateTable('bi_queries')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
