// The seed of `npm run bench:bi`: N deals (five stages, two currencies), N support tickets (statuses,
// priorities, SLA clocks of which some are breached), N call events (routes, methods, units; half in the
// last 30 days) and a little marketing content, in one workspace, written directly by the bulk writers of the
// analytics bench (the service is not running). Rows are spread over a year in time order, as use makes them.
import { type BulkWriter, pgClient, pgWriter, sqliteWriter, type Table } from './analytics-seed.ts';
import { DATABASE_URL, type Place } from './analytics-service.ts';

const DEALS: Table = {
  name: 'deals',
  columns: [
    'workspace_id',
    'id',
    'name',
    'stage_key',
    'amount_cents',
    'currency',
    'custom_fields',
    'closed_at',
    'created_at',
    'updated_at',
  ],
  numbers: ['amount_cents'],
};
const QUEUES: Table = {
  name: 'support_queues',
  columns: [
    'workspace_id',
    'id',
    'key',
    'name',
    'status',
    'default_priority',
    'custom_fields',
    'created_at',
    'updated_at',
  ],
};
const TICKETS: Table = {
  name: 'support_tickets',
  columns: [
    'workspace_id',
    'id',
    'queue_id',
    'subject',
    'status',
    'priority',
    'channel',
    'tags',
    'custom_fields',
    'first_response_due_at',
    'first_responded_at',
    'resolution_due_at',
    'resolved_at',
    'created_at',
    'updated_at',
  ],
};
const CALLS: Table = {
  name: 'call_events',
  columns: [
    'workspace_id',
    'id',
    'request_id',
    'occurred_at',
    'kind',
    'route',
    'method',
    'credential_path',
    'http_status',
    'error_code',
    'duration_ms',
    'units',
    'billed_units',
  ],
  numbers: ['http_status', 'duration_ms', 'units', 'billed_units'],
};
const CAMPAIGNS: Table = {
  name: 'marketing_campaigns',
  columns: [
    'workspace_id',
    'id',
    'name',
    'channel',
    'status',
    'budget_cents',
    'currency',
    'created_at',
    'updated_at',
  ],
  numbers: ['budget_cents'],
};

const STAGES = ['new', 'qualified', 'proposal', 'won', 'lost'];
const STATUSES = ['new', 'open', 'pending', 'on_hold', 'solved', 'closed'];
const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
const CHANNELS = ['email', 'web', 'chat', 'phone', 'api'];
const ROUTES = Array.from({ length: 24 }, (_, i) => [
  ['GET', 'POST', 'PATCH', 'DELETE'][i % 4]!,
  `/v1/${['contacts', 'deals', 'tickets', 'tasks', 'notes', 'entries'][i % 6]}${i >= 12 ? '/{id}' : ''}`,
]);
const KINDS = ['api_request', 'mcp_tool_call', 'worker_call'];
const HOUR = 3_600_000;
const YEAR = 365 * 24 * HOUR;

const id = (prefix: string, n: number) => `${prefix}_${String(n).padStart(10, '0')}`;
const iso = (ms: number) => new Date(ms).toISOString();

export interface BiSeed {
  /** Deals per stage and currency, sums in cents: what crm_pipeline's default query must answer. */
  dealValue: Map<string, number>;
}

/** Writes the rows; `now` is the instant the seed's times lead up to. */
export async function seedBi(place: Place, workspaceId: string, rows: number, now: number): Promise<BiSeed> {
  const writer: BulkWriter = DATABASE_URL
    ? await pgWriter(DATABASE_URL, place.schema!)
    : sqliteWriter(place.file);
  const at = (n: number, span: number) => now - span + Math.floor((n * span) / rows);
  const dealValue = new Map<string, number>();
  const stamp = iso(now);
  for (let n = 0; n < rows; n++) {
    const created = at(n, YEAR);
    const stage = STAGES[n % 5]!;
    const currency = n % 3 === 0 ? 'EUR' : 'USD';
    const amount = ((n * 7919) % 100_000) * 100 + 99;
    const key = `${stage}/${currency}`;
    dealValue.set(key, (dealValue.get(key) ?? 0) + amount);
    const closed = stage === 'won' || stage === 'lost' ? iso(created + 7 * 24 * HOUR) : null;
    await writer.add(DEALS, [
      workspaceId,
      id('deal', n),
      `Deal ${n}`,
      stage,
      amount,
      currency,
      '{}',
      closed,
      iso(created),
      iso(created),
    ]);
  }
  await writer.add(QUEUES, [
    workspaceId,
    'queue_bench',
    'bench',
    'Bench queue',
    'active',
    'normal',
    '{}',
    stamp,
    stamp,
  ]);
  await writer.exec('select 1'); // the queue before its tickets (buffers are written per table)
  for (let n = 0; n < rows; n++) {
    const created = at(n, YEAR);
    const status = STATUSES[n % 6]!;
    const done = status === 'solved' || status === 'closed';
    // First response due in 4 h: answered in 1 h, late (6 h) for one ticket in 7, never for one in 11.
    const responded = n % 11 === 0 ? null : iso(created + (n % 7 === 0 ? 6 : 1) * HOUR);
    const resolved = done ? iso(created + (n % 5 === 0 ? 96 : 24) * HOUR) : null;
    await writer.add(TICKETS, [
      workspaceId,
      id('tkt', n),
      'queue_bench',
      `Ticket ${n}`,
      status,
      PRIORITIES[n % 4]!,
      CHANNELS[n % 5]!,
      '[]',
      '{}',
      iso(created + 4 * HOUR),
      responded,
      iso(created + 72 * HOUR),
      resolved,
      iso(created),
      iso(created),
    ]);
  }
  // Call events over 60 days: the default query of usage_activation reads the last 30.
  for (let n = 0; n < rows; n++) {
    const [method, route] = ROUTES[(n * 13) % ROUTES.length]!;
    const status = n % 20 === 0 ? 422 : 200;
    await writer.add(CALLS, [
      workspaceId,
      id('call', n),
      id('req', n),
      iso(at(n, 60 * 24 * HOUR)),
      KINDS[n % 3]!,
      route,
      method,
      'rest/api_key',
      status,
      status === 200 ? null : 'validation_failed',
      5 + (n % 50),
      1,
      status === 200 ? 1 : 0,
    ]);
  }
  for (let n = 0; n < 200; n++) {
    const created = iso(at(n, YEAR));
    const row = [workspaceId, id('cmp', n), `Campaign ${n}`, CHANNELS[n % 3]!, n % 2 ? 'active' : 'draft'];
    await writer.add(CAMPAIGNS, [...row, 100_000 + n, n % 2 ? 'USD' : 'EUR', created, created]);
  }
  await writer.finish();
  if (place.schema) {
    // As autovacuum would after the load: statistics and the visibility map (index-only scans need it).
    const client = pgClient(DATABASE_URL!, place.schema);
    await client.connect();
    await client.query('vacuum analyze deals, support_tickets, call_events, marketing_campaigns');
    await client.end();
  }
  return { dealValue };
}
