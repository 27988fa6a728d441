import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { DB } from '../../db/tables.ts';
import type { Activity } from './activity-schemas.ts';
import type { ActivitiesTable } from './activity-tables.ts';

export function toActivity(row: ActivitiesTable): Activity {
  return {
    id: row.id,
    type: row.type,
    summary: row.summary,
    body: row.body,
    related_resource_type: row.related_resource_type,
    related_resource_id: row.related_resource_id,
    occurred_at: row.occurred_at,
    actor: { type: row.actor_type, credential_id: row.actor_credential_id },
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function insertActivity(db: Kysely<DB>, row: ActivitiesTable) {
  await db.insertInto('activities').values(row).execute();
  return toActivity(row);
}

export async function searchActivities(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string; type?: ActivitiesTable['type'] },
  page: PageRequest,
) {
  let query = db.selectFrom('activities').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.type) query = query.where('type', '=', filters.type);
  const result = await fetchSearchPage(db, query, page, {
    table: 'activities',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toActivity) };
}
