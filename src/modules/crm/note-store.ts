import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import { type NoteRow, noteRecord } from './crm-records.ts';

/** A note by ID, archived or not: writes and the operator's restore see archived notes, reads do not. */
export function findNote(db: Kysely<DB>, workspaceId: string, noteId: string) {
  return findRow(db, 'notes', workspaceId, noteId);
}

/** Sets columns of a note (archiving, the operator's restore). */
export function updateNoteRow(
  db: Kysely<DB>,
  workspaceId: string,
  noteId: string,
  changes: Partial<NoteRow>,
) {
  return updateRow(db, 'notes', workspaceId, noteId, changes);
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
  const result = await fetchSearchPage(db, query, page, {
    record: noteRecord,
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(noteRecord.toRecord) };
}
