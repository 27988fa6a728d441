import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { DB } from '../../db/tables.ts';
import { type ActivityType, activityRecord } from './activity-records.ts';

export async function searchActivities(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string; type?: ActivityType },
  page: PageRequest,
) {
  let query = db.selectFrom('activities').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.type) query = query.where('type', '=', filters.type);
  const result = await fetchSearchPage(db, query, page, {
    record: activityRecord,
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(activityRecord.toRecord) };
}
