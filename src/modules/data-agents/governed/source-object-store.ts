import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { insertRows } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentSourceObjectsTable } from './governed-tables.ts';
import type { SOURCE_OBJECT_KINDS, SourceObjectSchema } from './records-schemas.ts';

export type SourceObject = Static<typeof SourceObjectSchema>;

export function toSourceObject(row: DataAgentSourceObjectsTable): SourceObject {
  return {
    id: row.id,
    kind: row.kind as (typeof SOURCE_OBJECT_KINDS)[number],
    name: row.name,
    record: row.record_type && row.record_id ? { type: row.record_type, id: row.record_id } : null,
    dataset_key: row.dataset_key,
    app: row.app,
    object_type: row.object_type,
    uri: row.uri,
    description: row.description,
    owner: row.owner,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const insertSourceObject = (db: Kysely<DB>, row: DataAgentSourceObjectsTable) =>
  insertRows(db, 'data_agent_source_objects', row);

export async function listSourceObjects(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { kind?: string; dataset_key?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('data_agent_source_objects').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.kind) query = query.where('kind', '=', filters.kind);
  if (filters.dataset_key) query = query.where('dataset_key', '=', filters.dataset_key);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toSourceObject) };
}
