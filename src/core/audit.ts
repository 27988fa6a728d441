import type { Kysely } from 'kysely';
import { reusableInsert } from '../db/reusable-query.ts';
import type { AuditEventsTable, DB } from '../db/tables.ts';
import { recordedFields } from './changes.ts';
import type { Actor, AuditEntry, Surface } from './context.ts';
import { newId } from './ids.ts';
import { fetchPage, type Page, type PageRequest } from './pagination.ts';

export interface AuditWrite {
  workspaceId: string;
  requestId: string;
  occurredAt: string;
  actor: Actor;
  surface: Surface;
  tool: string;
  defaultAction: string;
  /** What caused a system action: the run of a worker call, the delivery of a job. */
  causedBy?: string;
}

/**
 * The audit write of work the service does by itself, outside any call (a job disabling an endpoint): actor
 * system, surface system, what caused it, and a request ID of its own unless the work continues a request
 * (a notification rule firing on a request's event is found under that request).
 */
export function systemWrite(fields: {
  workspaceId: string;
  occurredAt: string;
  actorName: string;
  tool: string;
  defaultAction: string;
  causedBy: string;
  requestId?: string;
}): AuditWrite {
  return {
    workspaceId: fields.workspaceId,
    requestId: fields.requestId ?? newId('req'),
    occurredAt: fields.occurredAt,
    actor: { type: 'system', credentialId: null, name: fields.actorName },
    surface: 'system',
    tool: fields.tool,
    defaultAction: fields.defaultAction,
    causedBy: fields.causedBy,
  };
}

export function auditRow(write: AuditWrite, entry: AuditEntry): AuditEventsTable {
  return {
    workspace_id: write.workspaceId,
    id: newId('aud'),
    request_id: write.requestId,
    occurred_at: write.occurredAt,
    actor_type: write.actor.type,
    actor_credential_id: write.actor.credentialId,
    actor_name: write.actor.name,
    surface: write.surface,
    tool: write.tool,
    action: entry.action ?? write.defaultAction,
    target_type: entry.targetType,
    target_id: entry.targetId,
    status: entry.status ?? 'succeeded',
    // Enforced here for every write, whatever a handler passed: never idempotency_key or dry_run.
    changed_fields: JSON.stringify(recordedFields(entry.changedFields ?? [])),
    on_behalf_of: write.actor.onBehalfOf ?? null,
    caused_by: write.causedBy ?? null,
  };
}

/** Column order of audit_events inserts (also src/core/write-effects.ts). */
export const AUDIT_COLUMNS = [
  'workspace_id',
  'id',
  'request_id',
  'occurred_at',
  'actor_type',
  'actor_credential_id',
  'actor_name',
  'surface',
  'tool',
  'action',
  'target_type',
  'target_id',
  'status',
  'changed_fields',
  'on_behalf_of',
  'caused_by',
] as const satisfies readonly (keyof AuditEventsTable)[];

const insertAuditRows = reusableInsert<AuditEventsTable>('audit_events', AUDIT_COLUMNS);

export async function insertAuditEvents(db: Kysely<DB>, rows: AuditEventsTable[]): Promise<void> {
  await insertAuditRows(db, rows);
}

export function toAuditResource(row: AuditEventsTable) {
  return {
    id: row.id,
    request_id: row.request_id,
    occurred_at: row.occurred_at,
    actor: {
      type: row.actor_type,
      credential_id: row.actor_credential_id,
      name: row.actor_name,
      on_behalf_of: row.on_behalf_of ?? null,
    },
    surface: row.surface,
    tool: row.tool,
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    status: row.status,
    changed_fields: JSON.parse(row.changed_fields) as string[],
    caused_by: row.caused_by ?? null,
  };
}

/** A record's history, newest first. No record lookup: history outlives the record. */
export async function listHistory(
  db: Kysely<DB>,
  workspaceId: string,
  targetType: string,
  targetId: string,
  page: PageRequest,
): Promise<Page<ReturnType<typeof toAuditResource>>> {
  const query = db
    .selectFrom('audit_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('target_type', '=', targetType)
    .where('target_id', '=', targetId);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toAuditResource) };
}

export async function auditEventsOfRequest(db: Kysely<DB>, workspaceId: string, requestId: string) {
  const rows = await db
    .selectFrom('audit_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('request_id', '=', requestId)
    .orderBy('id')
    .execute();
  return rows.map(toAuditResource);
}
