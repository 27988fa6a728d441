import type { Kysely } from 'kysely';
import { toAuditResource } from '../core/audit.ts';
import { requestRecord, toCallEventResource } from '../core/call-events.ts';
import { fail } from '../core/errors.ts';
import type { DB } from '../db/tables.ts';

/** Operator lookup of one request ID across the installation (the spec's support log entry). */
export async function lookupRequest(db: Kysely<DB>, requestId: string) {
  const [calls, audits] = await Promise.all([
    db.selectFrom('call_events').selectAll().where('request_id', '=', requestId).orderBy('id').execute(),
    db.selectFrom('audit_events').selectAll().where('request_id', '=', requestId).orderBy('id').execute(),
  ]);
  if (calls.length === 0 && audits.length === 0)
    throw fail('resource_not_found', { message: 'No request with this ID was recorded.' });
  const workspaceId = calls[0]?.workspace_id ?? audits[0]!.workspace_id;
  return {
    workspace_id: workspaceId,
    ...requestRecord(requestId, calls.map(toCallEventResource), audits.map(toAuditResource)),
  };
}
