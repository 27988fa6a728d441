import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { updateRecord } from '../../core/record-update.ts';
import { exampleId } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { noteRecord } from './crm-records.ts';
import { idInput } from './crm-shared.ts';
import { findNote, listNotes, updateNoteRow } from './note-store.ts';

const SUBJECTS = [
  ['contact_id', 'contact'],
  ['company_id', 'company'],
  ['deal_id', 'deal'],
] as const;

const noSubject = () =>
  validationFailed(
    SUBJECTS.map(([field]) => ({
      field,
      message: 'a note must name at least one of contact_id, company_id, deal_id',
    })),
  );

/** Every subject named must exist in this workspace (resource_not_found). */
async function checkSubjects(
  ctx: OperationContext,
  subjects: Partial<Record<(typeof SUBJECTS)[number][0], string | null>>,
) {
  for (const [field, type] of SUBJECTS) {
    const id = subjects[field];
    if (id) await ctx.requireRecord(type, id);
  }
}

// body first, as the operation has always listed it.
const { body, ...noteInput } = noteRecord.createInput;

export const createNote = defineOperation({
  name: 'create_note',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  example: { contact_id: exampleId('con') },
  creates: 'note',
  summary: 'Add a note to a contact, company or deal',
  description:
    'Adds a note (body, optional title) about at least one existing contact, company or deal. Notes accumulate, each with its author and history, unlike the overwritten notes field of those records. Emits note.created.',
  input: Strict({ body, ...noteInput }),
  rest: { method: 'POST', path: '/v1/notes' },
  responseKey: 'note',
  handler: async (ctx, input) => {
    if (!SUBJECTS.some(([field]) => input[field] !== undefined)) throw noSubject();
    await checkSubjects(ctx, input);
    const row = noteRecord.row(ctx, {
      ...input,
      author_type: ctx.actor.type,
      author_credential_id: ctx.actor.credentialId,
      author_name: ctx.actor.name,
    });
    const note = await noteRecord.insert(ctx.db, row);
    ctx.audit({ targetType: 'note', targetId: note.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'note.created', targetType: 'note', targetId: note.id, data: note });
    return { body: { note }, createdId: note.id };
  },
});

export const listNotesOperation = defineOperation({
  name: 'list_notes',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'List notes',
  description:
    'Lists notes, newest first, about a contact_id, company_id and/or deal_id; query matches title and body. Archived notes are left out.',
  input: Strict({
    contact_id: Type.Optional(idInput()),
    company_id: Type.Optional(idInput()),
    deal_id: Type.Optional(idInput()),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/notes' },
  heavy: heavyFilters({ indexed: ['contact_id', 'company_id', 'deal_id'] }),
  responseKey: 'notes',
  handler: async (ctx, input) => {
    const page = await listNotes(ctx.db, ctx.workspaceId, input, pageRequest('list_notes', input));
    return { body: listBody('notes', page) };
  },
});

export const updateNote = defineOperation({
  name: 'update_note',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'update',
  summary: 'Edit a note',
  description:
    "Changes a note's title, body, subjects (must exist; null unlinks; one must remain), custom_fields or metadata (merged; null removes a key). Changing nothing is validation_failed; archived notes are not found. Emits note.updated.",
  input: Strict({ note_id: idInput(), ...noteRecord.patchInput }),
  rest: { method: 'PATCH', path: '/v1/notes/{note_id}' },
  responseKey: 'note',
  handler: async (ctx, input) => {
    const { record: note } = await updateRecord(ctx, noteRecord, input.note_id, input, {
      apply: async ({ next, changed }) => {
        // The spec's own rule for notes: an update that changes nothing is refused, not a no-op.
        if (changed.length === 0) {
          throw validationFailed(
            [
              {
                field: '(body)',
                message: "changes nothing: send at least one field with a value different from the note's",
              },
            ],
            'update_note must change at least one field.',
          );
        }
        if (!next.contact_id && !next.company_id && !next.deal_id) throw noSubject();
        await checkSubjects(ctx, {
          contact_id: changed.includes('contact_id') ? next.contact_id : null,
          company_id: changed.includes('company_id') ? next.company_id : null,
          deal_id: changed.includes('deal_id') ? next.deal_id : null,
        });
      },
    });
    ctx.emit({ name: 'note.updated', targetType: 'note', targetId: note.id, data: note });
    return { body: { note } };
  },
});

export const archiveNote = defineOperation({
  name: 'archive_note',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'archive',
  summary: 'Archive a note',
  description:
    'Archives a note: hidden from every read, history kept (get_record_history, target_type note); an operator can restore it. Archiving again returns it unchanged. Emits note.archived.',
  input: Strict({ note_id: idInput() }),
  rest: { method: 'DELETE', path: '/v1/notes/{note_id}' },
  responseKey: 'note',
  handler: async (ctx, input) => {
    const row = await findNote(ctx.db, ctx.workspaceId, input.note_id);
    if (!row) throw notFound('note');
    if (row.archived_at) {
      ctx.audit({ targetType: 'note', targetId: row.id, changedFields: [] });
      return { body: { note: noteRecord.toRecord(row) } };
    }
    const changes = { archived_at: ctx.now, updated_at: ctx.now };
    await updateNoteRow(ctx.db, ctx.workspaceId, row.id, changes);
    const note = noteRecord.toRecord({ ...row, ...changes });
    ctx.audit({ targetType: 'note', targetId: row.id, changedFields: ['archived_at'] });
    ctx.emit({ name: 'note.archived', targetType: 'note', targetId: row.id, data: note });
    return { body: { note } };
  },
});
