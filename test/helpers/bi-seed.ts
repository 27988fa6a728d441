// Seed rows the BI tests write straight into the database, so their numbers can be summed by hand.
import { newId } from '../../src/core/ids.ts';
import type { CallEventsTable } from '../../src/db/tables.ts';

/** A deal of the crm_pipeline template: its stage, currency and amount are what the tests sum. */
export function dealRow(
  workspaceId: string,
  now: string,
  stage_key: string,
  currency: string,
  amount_cents: number,
  closed = false,
) {
  return {
    workspace_id: workspaceId,
    id: newId('deal'),
    name: `${stage_key} ${currency} ${amount_cents}`,
    stage_key,
    amount_cents,
    currency,
    company_id: null,
    contact_id: null,
    custom_fields: '{}',
    notes: null,
    closed_at: closed ? now : null,
    created_at: now,
    updated_at: now,
  };
}

/** A call event as [kind, route, status, units, billed_units, duration_ms, occurred_at, credential_id]. */
export type SeedCall = [
  CallEventsTable['kind'],
  string,
  number,
  number,
  number,
  number,
  string,
  string | null,
];

/** Call event rows of the usage templates; the method is the route's verb, tools/call for an MCP tool. */
export function callEventRows(workspaceId: string, calls: SeedCall[]): CallEventsTable[] {
  return calls.map(([kind, route, status, units, billed, duration, at, credential]) => ({
    workspace_id: workspaceId,
    id: newId('call'),
    request_id: newId('req'),
    occurred_at: at,
    kind,
    route,
    method: route.includes(' ') ? route.split(' ')[0]! : 'tools/call',
    credential_id: credential,
    credential_path: kind === 'mcp_tool_call' ? 'mcp/mcp_token' : 'rest/api_key',
    http_status: status,
    error_code: status >= 400 ? 'some_error' : null,
    duration_ms: duration,
    units,
    billed_units: billed,
    caused_by: null,
  }));
}
