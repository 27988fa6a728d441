import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';
import { fetchPage, matchesText, type PageRequest } from '../../core/pagination.ts';
import type { CompaniesTable, ContactsTable } from './crm-tables.ts';

export function toContact(row: ContactsTable) {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    company_id: row.company_id,
    company_name: row.company_name,
    notes: row.notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toCompany(row: CompaniesTable) {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    website: row.website,
    notes: row.notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function insertContact(db: Kysely<DB>, row: ContactsTable) {
  await db.insertInto('contacts').values(row).execute();
  return toContact(row);
}

export async function insertCompany(db: Kysely<DB>, row: CompaniesTable) {
  await db.insertInto('companies').values(row).execute();
  return toCompany(row);
}

export async function searchContacts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string; company_id?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('contacts').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.company_id) query = query.where('company_id', '=', filters.company_id);
  if (filters.query) query = query.where(matchesText(['name', 'email', 'company_name', 'notes'], filters.query));
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toContact) };
}

export async function searchCompanies(db: Kysely<DB>, workspaceId: string, filters: { query?: string }, page: PageRequest) {
  let query = db.selectFrom('companies').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.query) query = query.where(matchesText(['name', 'domain', 'website', 'notes'], filters.query));
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toCompany) };
}

/** Counts for get_workspace_summary, in one query. */
export async function crmCounts(db: Kysely<DB>, workspaceId: string) {
  const row = await db
    .selectNoFrom((eb) => [
      eb
        .selectFrom('contacts')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .as('contacts'),
      eb
        .selectFrom('companies')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .as('companies'),
    ])
    .executeTakeFirstOrThrow();
  return { contacts: Number(row.contacts), companies: Number(row.companies) };
}
