import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { DatasetManifestSchema } from './dataset-version-schemas.ts';
import type { DataAgentDatasetManifestsTable } from './governed-tables.ts';

export type DatasetManifest = Static<typeof DatasetManifestSchema>;

export function toDatasetManifest(row: DataAgentDatasetManifestsTable): DatasetManifest {
  return {
    id: row.id,
    version_id: row.version_id,
    dataset_key: row.dataset_key,
    owner: row.owner,
    description: row.description,
    tags: JSON.parse(row.tags),
    freshness: row.freshness ? JSON.parse(row.freshness) : null,
    column_docs: JSON.parse(row.column_docs),
    source_object_ids: JSON.parse(row.source_object_ids),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const insertManifest = (db: Kysely<DB>, row: DataAgentDatasetManifestsTable) =>
  insertRows(db, 'data_agent_dataset_manifests', row);

/** The manifest of a version, if it has one (one per version). */
export const manifestOfVersion = (db: Kysely<DB>, workspaceId: string, versionId: string) =>
  db
    .selectFrom('data_agent_dataset_manifests')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('version_id', '=', versionId)
    .executeTakeFirst();

export async function listManifests(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { dataset_key?: string; version_id?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('data_agent_dataset_manifests')
    .selectAll()
    .where('workspace_id', '=', workspaceId);
  if (filters.dataset_key) query = query.where('dataset_key', '=', filters.dataset_key);
  if (filters.version_id) query = query.where('version_id', '=', filters.version_id);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toDatasetManifest) };
}
