import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import { reusableInsert } from '../db/reusable-query.ts';
import type { CallEventsTable, DB } from '../db/tables.ts';
import type { Principal } from './auth.ts';
import type { Call } from './call.ts';
import { newId } from './ids.ts';

/** Column order of call_events inserts (also src/core/write-effects.ts). */
export const CALL_EVENT_COLUMNS = [
  'workspace_id',
  'id',
  'request_id',
  'occurred_at',
  'kind',
  'route',
  'method',
  'credential_id',
  'credential_path',
  'http_status',
  'error_code',
  'duration_ms',
  'units',
  'billed_units',
  'caused_by',
] as const satisfies readonly (keyof CallEventsTable)[];

const insertCallEvents = reusableInsert<CallEventsTable>('call_events', CALL_EVENT_COLUMNS);

const KINDS = { rest: 'api_request', mcp: 'mcp_tool_call', worker: 'worker_call' } as const;

/**
 * The call event of a pipeline call: its units (the operation's, or what its handler reported for the
 * work), billed unless it failed or came with a public key (a site's: metered, never billed to the
 * workspace's credit or cap); a worker call names the run that caused it.
 */
export function callEventRow(
  call: Pick<Call, 'surface' | 'requestId' | 'route' | 'method' | 'onBehalfOf' | 'publicKey'>,
  principal: Principal,
  outcome: { occurredAt: string; status: number; error?: string; started: number; units: number },
): CallEventsTable {
  return {
    workspace_id: principal.workspace.id,
    id: newId('call'),
    request_id: call.requestId,
    occurred_at: outcome.occurredAt,
    kind: KINDS[call.surface],
    route: call.route,
    method: call.method,
    credential_id: principal.credential.id,
    credential_path: `${call.surface}/${principal.credential.kind}`,
    http_status: outcome.status,
    error_code: outcome.error ?? null,
    duration_ms: Math.round(performance.now() - outcome.started),
    units: outcome.units,
    billed_units: outcome.error || call.publicKey ? 0 : outcome.units,
    caused_by: call.onBehalfOf?.causedBy ?? null,
  };
}

/** One row per REST, MCP or worker call: the usage event and the request / tool call event at once. */
export async function insertCallEvent(db: Kysely<DB>, ...rows: CallEventsTable[]): Promise<void> {
  await insertCallEvents(db, rows);
}

export function toCallEventResource(row: CallEventsTable) {
  return {
    id: row.id,
    request_id: row.request_id,
    occurred_at: row.occurred_at,
    kind: row.kind,
    route: row.route,
    method: row.method,
    credential_id: row.credential_id,
    credential_path: row.credential_path,
    http_status: Number(row.http_status),
    error_code: row.error_code,
    duration_ms: Number(row.duration_ms),
    units: Number(row.units),
    billed_units: Number(row.billed_units),
    caused_by: row.caused_by ?? null,
  };
}

export async function callEventsOfRequest(db: Kysely<DB>, workspaceId: string, requestId: string) {
  const rows = await db
    .selectFrom('call_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('request_id', '=', requestId)
    .orderBy('id')
    .execute();
  return rows.map(toCallEventResource);
}

/** Who/what/when of a request as the support log shows it: the call (= usage) event and its audit events. */
export function requestRecord(
  requestId: string,
  callEvents: ReturnType<typeof toCallEventResource>[],
  auditEvents: unknown[],
) {
  const call = callEvents[0] ?? null;
  return {
    request_id: requestId,
    call_event: call,
    usage_event: call && {
      request_id: call.request_id,
      occurred_at: call.occurred_at,
      event_type: call.kind,
      route: call.route,
      method: call.method,
      credential_path: call.credential_path,
      units: call.units,
      billed_units: call.billed_units,
    },
    audit_events: auditEvents,
  };
}
