import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Note } from './crm-schemas.ts';
import { parseFields } from './crm-shared.ts';
import type { NotesTable } from './crm-tables.ts';

export function toNote(row: NotesTable): Note {
  return {
    id: row.id,
    title: row.title,
    body: row.body,
    contact_id: row.contact_id,
    company_id: row.company_id,
    deal_id: row.deal_id,
    custom_fields: parseFields(row.custom_fields),
    metadata: parseFields(row.metadata),
    author: { type: row.author_type, credential_id: row.author_credential_id, name: row.author_name },
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A note by ID, archived or not: writes and the operator's restore see archived notes, reads do not. */
export function findNote(db: Kysely<DB>, workspaceId: string, noteId: string) {
  return findRow(db, 'notes', workspaceId, noteId);
}

export async function updateNoteRow(
  db: Kysely<DB>,
  workspaceId: string,
  noteId: string,
  changes: Partial<NotesTable>,
) {
  await db
    .updateTable('notes')
    .set(changes)
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', noteId)
    .execute();
}

export interface NoteFilters {
  contact_id?: string;
  company_id?: string;
  deal_id?: string;
  query?: string;
}

export async function listNotes(
  db: Kysely<DB>,
  workspaceId: string,
  filters: NoteFilters,
  page: PageRequest,
) {
  let query = db
    .selectFrom('notes')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.contact_id) query = query.where('contact_id', '=', filters.contact_id);
  if (filters.company_id) query = query.where('company_id', '=', filters.company_id);
  if (filters.deal_id) query = query.where('deal_id', '=', filters.deal_id);
  const result = await fetchSearchPage(db, query, page, { table: 'notes', workspaceId, text: filters.query });
  return { ...result, items: result.items.map(toNote) };
}

export function insertNote(db: Kysely<DB>, row: NotesTable) {
  return insertRows(db, 'notes', row);
}
