// A call_events row as the pipeline writes one for a REST create_contact, for tests that insert call events
// directly; `fields` overrides any column.
import { newId } from '../../src/core/ids.ts';
import type { CallEventsTable } from '../../src/db/tables.ts';

export function callEventRow(
  fields: Partial<CallEventsTable> & Pick<CallEventsTable, 'workspace_id'>,
): CallEventsTable {
  return {
    id: newId('call'),
    request_id: newId('req'),
    occurred_at: new Date().toISOString(),
    kind: 'api_request',
    route: 'create_contact',
    method: 'POST',
    credential_id: null,
    credential_path: 'rest/api_key',
    http_status: 201,
    error_code: null,
    duration_ms: 3,
    units: 1,
    billed_units: 1,
    caused_by: null,
    ...fields,
  };
}
