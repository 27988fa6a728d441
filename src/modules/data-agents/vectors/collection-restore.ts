// Operator restore of an archived vector collection
// (POST /admin/v1/workspaces/{workspace_id}/vector-collections/{collection_key}/restore).
import { findWorkspace, noWorkspace, type OperatorCall } from '../../../admin/workspace-admin.ts';
import { auditRow, insertAuditEvents } from '../../../core/audit.ts';
import type { Actor } from '../../../core/context.ts';
import { notFound } from '../../../core/errors.ts';
import { findCollection, setCollectionStatus, toCollection } from './vector-store.ts';

const operator: Actor = { type: 'operator', credentialId: null, name: 'operator' };

/** Makes an archived collection searchable and writable again; an active one is returned unchanged. */
export async function restoreVectorCollection(call: OperatorCall, workspaceId: string, key: string) {
  if (!(await findWorkspace(call.db, workspaceId))) throw noWorkspace();
  const now = call.clock.now().toISOString();
  return call.db.transaction().execute(async (trx) => {
    const row = await findCollection(trx, workspaceId, key);
    if (!row || row.key !== key) throw notFound('vector collection');
    if (row.status === 'active') return toCollection(row);
    const changes = { status: 'active' as const, archived_at: null, updated_at: now };
    await setCollectionStatus(trx, workspaceId, row.id, changes);
    const write = {
      workspaceId,
      requestId: call.requestId,
      occurredAt: now,
      actor: operator,
      surface: call.surface,
      tool: 'admin.restore_vector_collection',
      defaultAction: 'restore',
    };
    await insertAuditEvents(trx, [
      auditRow(write, {
        targetType: 'vector_collection',
        targetId: row.id,
        changedFields: ['status', 'archived_at'],
      }),
    ]);
    return toCollection({ ...row, ...changes });
  });
}
