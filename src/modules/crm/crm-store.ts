import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { DB } from '../../db/tables.ts';
import { companyRecord, contactRecord } from './crm-records.ts';

export async function searchContacts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string; company_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('contacts').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.company_id) query = query.where('company_id', '=', filters.company_id);
  const result = await fetchSearchPage(db, query, page, {
    record: contactRecord,
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(contactRecord.toRecord) };
}

export async function searchCompanies(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string },
  page: PageRequest,
) {
  const query = db.selectFrom('companies').selectAll().where('workspace_id', '=', workspaceId);
  const result = await fetchSearchPage(db, query, page, {
    record: companyRecord,
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(companyRecord.toRecord) };
}
