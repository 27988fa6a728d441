// Operator restore of an archived note (POST /admin/v1/workspaces/{workspace_id}/notes/{note_id}/restore).
import { auditRow, insertAuditEvents } from '../core/audit.ts';
import type { Actor } from '../core/context.ts';
import { notFound } from '../core/errors.ts';
import { noteRecord } from '../modules/crm/crm-records.ts';
import { findNote, updateNoteRow } from '../modules/crm/note-store.ts';
import { findWorkspace, noWorkspace, type OperatorCall } from './workspace-admin.ts';

const operator: Actor = { type: 'operator', credentialId: null, name: 'operator' };

/**
 * Brings an archived note back into every read. The note's history gains an operator audit event; a note
 * that is not archived is returned unchanged (the restore is safe to repeat).
 */
export async function restoreNote(call: OperatorCall, workspaceId: string, noteId: string) {
  if (!(await findWorkspace(call.db, workspaceId))) throw noWorkspace();
  const now = call.clock.now().toISOString();
  return call.db.transaction().execute(async (trx) => {
    const row = await findNote(trx, workspaceId, noteId);
    if (!row) throw notFound('note');
    if (!row.archived_at) return noteRecord.toRecord(row);
    const changes = { archived_at: null, updated_at: now };
    await updateNoteRow(trx, workspaceId, noteId, changes);
    const write = {
      workspaceId,
      requestId: call.requestId,
      occurredAt: now,
      actor: operator,
      surface: call.surface,
      tool: 'admin.restore_note',
      defaultAction: 'restore',
    };
    await insertAuditEvents(trx, [
      auditRow(write, { targetType: 'note', targetId: noteId, changedFields: ['archived_at'] }),
    ]);
    return noteRecord.toRecord({ ...row, ...changes });
  });
}
