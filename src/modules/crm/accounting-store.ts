import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { AccountingAccount, JournalEntry } from './crm-schemas.ts';
import { parseFields } from './crm-shared.ts';
import type { AccountingAccountsTable, AccountType, JournalEntriesTable } from './crm-tables.ts';

export interface JournalLine {
  account_id: string;
  debit_cents: number;
  credit_cents: number;
}

export function toAccount(row: AccountingAccountsTable): AccountingAccount {
  return {
    id: row.id,
    code: row.code,
    name: row.name,
    type: row.type,
    description: row.description,
    custom_fields: parseFields(row.custom_fields),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toJournalEntry(row: JournalEntriesTable): JournalEntry {
  return {
    id: row.id,
    entry_number: row.entry_number,
    status: row.status,
    memo: row.memo,
    lines: JSON.parse(row.lines) as JournalLine[],
    total_cents: Number(row.total_cents),
    custom_fields: parseFields(row.custom_fields),
    posted_at: row.posted_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function accountCodeTaken(db: Kysely<DB>, workspaceId: string, code: string) {
  const row = await db
    .selectFrom('accounting_accounts')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('code', '=', code)
    .executeTakeFirst();
  return row !== undefined;
}

/** The IDs among `ids` that are not accounts of this workspace, in one query. */
export async function missingAccounts(db: Kysely<DB>, workspaceId: string, ids: string[]): Promise<string[]> {
  const unique = [...new Set(ids)];
  const found = await db
    .selectFrom('accounting_accounts')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', unique)
    .execute();
  const present = new Set(found.map((row) => row.id));
  return unique.filter((id) => !present.has(id));
}

export async function listAccounts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { type?: AccountType; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('accounting_accounts').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.type) query = query.where('type', '=', filters.type);
  const result = await fetchSearchPage(db, query, page, {
    table: 'accounting_accounts',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toAccount) };
}

export function findJournalEntry(db: Kysely<DB>, workspaceId: string, entryId: string) {
  return findRow(db, 'journal_entries', workspaceId, entryId);
}

export async function entryNumberTaken(
  db: Kysely<DB>,
  workspaceId: string,
  entryNumber: string,
  exceptId?: string,
) {
  let query = db
    .selectFrom('journal_entries')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('entry_number', '=', entryNumber);
  if (exceptId) query = query.where('id', '!=', exceptId);
  return (await query.executeTakeFirst()) !== undefined;
}

export async function listJournalEntries(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: 'draft' | 'posted'; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('journal_entries').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchSearchPage(db, query, page, {
    table: 'journal_entries',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toJournalEntry) };
}

export function insertAccount(db: Kysely<DB>, row: AccountingAccountsTable) {
  return insertRows(db, 'accounting_accounts', row);
}

export function insertJournalEntry(db: Kysely<DB>, row: JournalEntriesTable) {
  return insertRows(db, 'journal_entries', row);
}

export function updateJournalEntryRow(
  db: Kysely<DB>,
  workspaceId: string,
  entryId: string,
  changes: Partial<JournalEntriesTable>,
) {
  return updateRow(db, 'journal_entries', workspaceId, entryId, changes);
}
