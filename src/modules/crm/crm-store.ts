import { type Kysely, sql } from 'kysely';
import { fetchPage, type PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
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
  const result = filters.query
    ? await fetchSearchPage(db, query, page, { table: 'contacts', workspaceId, text: filters.query })
    : await fetchPage(query, page);
  return { ...result, items: result.items.map(toContact) };
}

export async function searchCompanies(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string },
  page: PageRequest,
) {
  const query = db.selectFrom('companies').selectAll().where('workspace_id', '=', workspaceId);
  const result = filters.query
    ? await fetchSearchPage(db, query, page, { table: 'companies', workspaceId, text: filters.query })
    : await fetchPage(query, page);
  return { ...result, items: result.items.map(toCompany) };
}

/**
 * The crm section of get_workspace_summary in one query: contact and company counts and the open deals
 * (closed_at null) with their value per currency, as UNION ALL rows. Each branch reads an index only.
 */
export async function crmCounts(db: Kysely<DB>, workspaceId: string) {
  const rows = await db
    .selectFrom('contacts')
    .select([
      sql<string>`'contacts'`.as('part'),
      sql<string | null>`null`.as('currency'),
      (e) => e.fn.countAll<number>().as('n'),
      sql<number>`0`.as('value'),
    ])
    .where('workspace_id', '=', workspaceId)
    .unionAll(
      db
        .selectFrom('companies')
        .select([
          sql<string>`'companies'`.as('part'),
          sql<string | null>`null`.as('currency'),
          (e) => e.fn.countAll<number>().as('n'),
          sql<number>`0`.as('value'),
        ])
        .where('workspace_id', '=', workspaceId),
    )
    .unionAll(
      db
        .selectFrom('deals')
        .select([
          sql<string>`'open_deals'`.as('part'),
          'currency',
          (e) => e.fn.countAll<number>().as('n'),
          (e) => e.fn.sum<number>('amount_cents').as('value'),
        ])
        .where('workspace_id', '=', workspaceId)
        .where('closed_at', 'is', null)
        .groupBy('currency'),
    )
    .execute();
  const summary = {
    contacts: 0,
    companies: 0,
    open_deals: { count: 0, amount_cents_by_currency: {} as Record<string, number> },
  };
  for (const row of rows) {
    if (row.part === 'contacts') summary.contacts = Number(row.n);
    else if (row.part === 'companies') summary.companies = Number(row.n);
    else {
      summary.open_deals.count += Number(row.n);
      summary.open_deals.amount_cents_by_currency[row.currency!] = Number(row.value);
    }
  }
  return summary;
}
