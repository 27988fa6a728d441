import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { DB } from '../../db/tables.ts';
import { accountingAccountRecord, type accountTypes, journalEntryRecord } from './ledger-records.ts';

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
  filters: { type?: (typeof accountTypes)[number]; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('accounting_accounts').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.type) query = query.where('type', '=', filters.type);
  const result = await fetchSearchPage(db, query, page, {
    record: accountingAccountRecord,
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(accountingAccountRecord.toRecord) };
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
    record: journalEntryRecord,
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(journalEntryRecord.toRecord) };
}
