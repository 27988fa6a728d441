import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { reusableInsert } from '../../db/reusable-query.ts';
import type { DB } from '../../db/tables.ts';
import type { Company, Contact } from './crm-schemas.ts';
import type { CompaniesTable, ContactsTable } from './crm-tables.ts';

export function toContact(row: ContactsTable): Contact {
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

export function toCompany(row: CompaniesTable): Company {
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

// A create's insert, compiled once per adapter (reusable-query.ts): building and compiling a Kysely insert
// on every call cost more CPU than the driver's work to send it.
const CONTACT_COLUMNS = [
  'workspace_id',
  'id',
  'name',
  'email',
  'phone',
  'company_id',
  'company_name',
  'notes',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof ContactsTable)[];
const insertContactRow = reusableInsert<ContactsTable>('contacts', CONTACT_COLUMNS);

const COMPANY_COLUMNS = [
  'workspace_id',
  'id',
  'name',
  'domain',
  'website',
  'notes',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof CompaniesTable)[];
const insertCompanyRow = reusableInsert<CompaniesTable>('companies', COMPANY_COLUMNS);

export async function insertContact(db: Kysely<DB>, row: ContactsTable) {
  await insertContactRow(db, [row]);
  return toContact(row);
}

export async function insertCompany(db: Kysely<DB>, row: CompaniesTable) {
  await insertCompanyRow(db, [row]);
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
  const result = await fetchSearchPage(db, query, page, {
    table: 'contacts',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toContact) };
}

export async function searchCompanies(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string },
  page: PageRequest,
) {
  const query = db.selectFrom('companies').selectAll().where('workspace_id', '=', workspaceId);
  const result = await fetchSearchPage(db, query, page, {
    table: 'companies',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toCompany) };
}
