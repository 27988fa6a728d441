// The daily call-event rollup (migration 0027): usage_activation's and api_usage's answers are the same
// numbers (hand-computed from the seed below) before any day is rolled up, with some days and with every
// complete day rolled up; queries the rollup cannot answer exactly read the raw rows; rolling up twice counts
// nothing twice; the other workspace never shows; the retention cut drops old days. The worker:
// bi-call-event-days-job.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rollUpCallEventDays } from '../src/modules/product-analytics/bi/call-event-days-job.ts';
import {
  executeQuery,
  prepareQuery,
  type QueryDefinition,
  type ResolvedDataset,
  streamQueryRows,
} from '../src/modules/product-analytics/bi/run-query.ts';
import { findTemplate } from '../src/modules/product-analytics/bi/templates.ts';
import { callEventRows, type SeedCall } from './helpers/bi-seed.ts';
import { Harness, MutableClock, type TestWorkspace } from './helpers/harness.ts';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const RETENTION = 400;

/** [kind, route, status, units, billed_units, duration_ms, occurred_at, credential_id] */
const A_CALLS: SeedCall[] = [
  ['api_request', 'GET /v1/contacts', 200, 2, 2, 16, '2026-10-01T09:00:00.000Z', 'cred_1'],
  ['api_request', 'GET /v1/contacts', 200, 2, 2, 10, '2026-11-17T00:00:00.000Z', 'cred_1'],
  ['api_request', 'GET /v1/contacts', 404, 1, 0, 30, '2026-11-17T23:59:59.999Z', 'cred_1'],
  ['mcp_tool_call', 'search_records', 200, 3, 3, 20, '2026-11-17T10:30:00.000Z', 'cred_2'],
  ['api_request', 'POST /v1/contacts', 201, 1, 1, 40, '2026-11-18T10:30:00.000Z', 'cred_1'],
  ['api_request', 'GET /v1/contacts', 200, 2, 2, 12, '2026-11-18T11:00:00.000Z', 'cred_2'],
  ['worker_call', 'POST /v1/contacts', 201, 1, 1, 8, '2026-11-19T05:00:00.000Z', null],
  ['api_request', 'GET /v1/contacts', 200, 2, 2, 11, '2026-11-20T23:00:00.000Z', 'cred_1'],
  ['mcp_tool_call', 'search_records', 500, 1, 0, 50, '2026-11-20T12:00:00.000Z', 'cred_2'],
  // Today: never rolled up.
  ['api_request', 'GET /v1/contacts', 200, 2, 2, 14, '2026-11-21T08:00:00.000Z', 'cred_1'],
  ['mcp_tool_call', 'search_records', 200, 3, 3, 25, '2026-11-21T11:00:00.000Z', 'cred_2'],
];
const B_CALLS: SeedCall[] = [
  ['api_request', 'DELETE /v1/contacts/{id}', 200, 100, 100, 1000, '2026-11-17T09:00:00.000Z', 'cred_b'],
  ['api_request', 'GET /v1/contacts', 200, 100, 100, 1000, '2026-11-18T09:00:00.000Z', 'cred_b'],
  ['api_request', 'GET /v1/contacts', 200, 100, 100, 1000, '2026-11-21T09:00:00.000Z', 'cred_b'],
];

const ACTIVATION = [
  { occurred_at_day: '2026-11-17', event_type: 'api_request', events: 2, units: 3, billed_units: 2 },
  { occurred_at_day: '2026-11-17', event_type: 'mcp_tool_call', events: 1, units: 3, billed_units: 3 },
  { occurred_at_day: '2026-11-18', event_type: 'api_request', events: 2, units: 3, billed_units: 3 },
  { occurred_at_day: '2026-11-19', event_type: 'worker_call', events: 1, units: 1, billed_units: 1 },
  { occurred_at_day: '2026-11-20', event_type: 'api_request', events: 1, units: 2, billed_units: 2 },
  { occurred_at_day: '2026-11-20', event_type: 'mcp_tool_call', events: 1, units: 1, billed_units: 0 },
  { occurred_at_day: '2026-11-21', event_type: 'api_request', events: 1, units: 2, billed_units: 2 },
  { occurred_at_day: '2026-11-21', event_type: 'mcp_tool_call', events: 1, units: 3, billed_units: 3 },
];
const API_USAGE = [
  // 16+10+30+12+11+14 = 93 over 6; 20+50+25 = 95 over 3; 40+8 = 48 over 2.
  { route: 'GET /v1/contacts', method: 'GET', calls: 6, failed_calls: 1, avg_duration_ms: 15.5 },
  { route: 'search_records', method: 'tools/call', calls: 3, failed_calls: 1, avg_duration_ms: 31.666667 },
  { route: 'POST /v1/contacts', method: 'POST', calls: 2, failed_calls: 0, avg_duration_ms: 24 },
];

describe('the daily call-event rollup', () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;

  const query = async (workspaceId: string, definition: QueryDefinition, dataset?: ResolvedDataset) => {
    const options = { dialect: h.service.deps.database.dialect, now: NOW.toISOString(), credentialId: null };
    const compiled = await prepareQuery(h.db, workspaceId, definition, options, dataset);
    const rolled = compiled.base.compile().sql.includes('call_event_days');
    return { rolled, rows: (await executeQuery(compiled)).rows, compiled };
  };
  const defaults = async (workspaceId: string) => ({
    activation: (await query(workspaceId, { dataset_key: 'usage_activation', limit: 100 })).rows,
    api: (await query(workspaceId, { dataset_key: 'api_usage', limit: 100 })).rows,
  });
  const state = () =>
    h.db
      .selectFrom('call_event_days_state')
      .select(['rolled_from', 'rolled_until'])
      .executeTakeFirstOrThrow();
  const rolledCalls = async (workspaceId: string) =>
    (
      await h.db
        .selectFrom('call_event_days')
        .select(({ fn }) => fn.sum<number>('calls').as('calls'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).calls;

  // Not exact from the rollup: each of these reads the raw rows.
  const HOUR_GRAIN: QueryDefinition = {
    dataset_key: 'usage_activation',
    dimensions: ['event_type'],
    measures: [{ aggregate: 'count', as: 'events' }],
    time_range: { from: '2026-11-17T00:00:00Z', to: '2026-11-18T00:00:00Z' },
    time_grain: 'hour',
  };
  const BERLIN_DAYS: QueryDefinition = {
    dataset_key: 'usage_activation',
    measures: [{ aggregate: 'count', as: 'events' }],
    time_range: { from: '2026-11-17T00:00:00Z', to: '2026-11-19T00:00:00Z' },
    time_grain: 'day',
    timezone: 'Europe/Berlin',
  };
  const DISTINCT_CREDENTIALS: QueryDefinition = {
    dataset_key: 'api_usage',
    dimensions: ['route'],
    measures: [{ column: 'credential_id', aggregate: 'count_distinct', as: 'credentials' }],
  };
  const BY_CREDENTIAL: QueryDefinition = {
    dataset_key: 'usage_activation',
    dimensions: ['credential_id'],
    measures: [{ aggregate: 'count', as: 'events' }],
  };
  const FROM_10_30: QueryDefinition = {
    dataset_key: 'api_usage',
    time_range: { from: '2026-11-17T10:30:00Z', to: '2026-11-21T00:00:00Z' },
  };

  beforeAll(async () => {
    h = await Harness.start({ clock: new MutableClock(NOW) });
    a = await h.workspace('Rollup A');
    b = await h.workspace('Rollup B');
    // Only the seeded calls: the workspace setup's own calls would be counted too.
    await h.db.deleteFrom('call_events').where('workspace_id', 'in', [a.id, b.id]).execute();
    await h.db
      .insertInto('call_events')
      .values([...callEventRows(a.id, A_CALLS), ...callEventRows(b.id, B_CALLS)])
      .execute();
  });
  afterAll(() => h?.close());

  it('answers the default queries from the raw rows before any day is rolled up', async () => {
    expect(await defaults(a.id)).toEqual({ activation: ACTIVATION, api: API_USAGE });
    expect((await query(b.id, { dataset_key: 'api_usage' })).rows).toEqual([
      { route: 'GET /v1/contacts', method: 'GET', calls: 2, failed_calls: 0, avg_duration_ms: 1000 },
      {
        route: 'DELETE /v1/contacts/{id}',
        method: 'DELETE',
        calls: 1,
        failed_calls: 0,
        avg_duration_ms: 1000,
      },
    ]);
  });

  it('gives the same answers with some days rolled up, and with every complete day', async () => {
    // Days without calls are skipped: Oct 1, then Nov 17.
    const some = await rollUpCallEventDays(h.db, NOW, RETENTION, { maxDays: 2 });
    expect({ days: some.days, rows: some.rows, until: some.state.rolled_until }).toEqual({
      days: 2,
      rows: 5, // Oct 1: A 1; Nov 17: A 3 (GET 200, GET 404, mcp), B 1
      until: '2026-11-18T00:00:00.000Z',
    });
    expect(await defaults(a.id)).toEqual({ activation: ACTIVATION, api: API_USAGE });

    // Two runs at once: the state row's lock lets one roll up each day.
    const [first, second] = await Promise.all([
      rollUpCallEventDays(h.db, NOW, RETENTION),
      rollUpCallEventDays(h.db, NOW, RETENTION),
    ]);
    expect(first.days + second.days).toBe(3); // Nov 18, 19, 20; today is not complete
    expect(await state()).toEqual({
      rolled_from: '2025-10-19T00:00:00.000Z', // 400 days back is 2025-10-17T12:00: first whole day Oct 18, a day on
      rolled_until: '2026-11-21T00:00:00.000Z',
    });
    expect(await defaults(a.id)).toEqual({ activation: ACTIVATION, api: API_USAGE });
    expect([await rolledCalls(a.id), await rolledCalls(b.id)].map(Number)).toEqual([9, 2]);
  });

  it('counts nothing twice when it runs again', async () => {
    const again = await rollUpCallEventDays(h.db, NOW, RETENTION);
    expect([again.days, again.rows, again.removed]).toEqual([0, 0, 0]);
    expect([await rolledCalls(a.id), await rolledCalls(b.id)].map(Number)).toEqual([9, 2]);
    expect(await defaults(a.id)).toEqual({ activation: ACTIVATION, api: API_USAGE });
  });

  it('reads the rollup only for queries it answers exactly, and those read the same numbers', async () => {
    const eligible: QueryDefinition[] = [
      { dataset_key: 'usage_activation' },
      { dataset_key: 'api_usage' },
      { ...BERLIN_DAYS, timezone: 'UTC', time_grain: 'week' },
      { ...DISTINCT_CREDENTIALS, measures: [{ column: 'route', aggregate: 'count_distinct' }] },
      {
        dataset_key: 'api_usage',
        filters: [
          { column: 'failed', operator: 'eq', value: true },
          { column: 'occurred_at', operator: 'gte', value: '2026-11-18T00:00:00Z' },
        ],
      },
    ];
    for (const definition of eligible) expect((await query(a.id, definition)).rolled).toBe(true);
    const notEligible = [HOUR_GRAIN, BERLIN_DAYS, DISTINCT_CREDENTIALS, BY_CREDENTIAL, FROM_10_30];
    for (const definition of notEligible) expect((await query(a.id, definition)).rolled).toBe(false);

    expect((await query(a.id, HOUR_GRAIN)).rows).toEqual([
      { event_type: 'api_request', occurred_at_hour: '2026-11-17T00:00', events: 1 },
      { event_type: 'mcp_tool_call', occurred_at_hour: '2026-11-17T10:00', events: 1 },
      { event_type: 'api_request', occurred_at_hour: '2026-11-17T23:00', events: 1 },
    ]);
    // Berlin is UTC+1: 23:59:59.999Z on the 17th is the 18th there.
    expect((await query(a.id, BERLIN_DAYS)).rows).toEqual([
      { occurred_at_day: '2026-11-17', events: 2 },
      { occurred_at_day: '2026-11-18', events: 3 },
    ]);
    expect((await query(a.id, DISTINCT_CREDENTIALS)).rows).toEqual([
      { route: 'GET /v1/contacts', credentials: 2 },
      { route: 'POST /v1/contacts', credentials: 1 },
      { route: 'search_records', credentials: 1 },
    ]);
    expect((await query(a.id, BY_CREDENTIAL)).rows).toEqual([
      { credential_id: 'cred_1', events: 6 },
      { credential_id: 'cred_2', events: 4 },
      { credential_id: null, events: 1 },
    ]);
    expect((await query(a.id, FROM_10_30)).rows).toEqual([
      { route: 'GET /v1/contacts', method: 'GET', calls: 3, failed_calls: 1, avg_duration_ms: 17.666667 },
      { route: 'POST /v1/contacts', method: 'POST', calls: 2, failed_calls: 0, avg_duration_ms: 24 },
      { route: 'search_records', method: 'tools/call', calls: 2, failed_calls: 1, avg_duration_ms: 35 },
    ]);
    // The eligible ones, by hand: failed calls since Nov 18 (the 500 on the 20th); weeks from Monday Nov 16.
    expect((await query(a.id, eligible[4]!)).rows).toEqual([
      { route: 'search_records', method: 'tools/call', calls: 1, failed_calls: 1, avg_duration_ms: 50 },
    ]);
    expect((await query(a.id, eligible[2]!)).rows).toEqual([{ occurred_at_week: '2026-11-16', events: 5 }]);
  });

  it('answers a custom dataset over the template and streams an export from the rollup', async () => {
    const template = findTemplate('api_usage')!;
    const succeeded: ResolvedDataset = {
      key: 'succeeded_calls',
      id: 'bids_test',
      template,
      columns: template.columns.filter((c) => c.name !== 'credential_id'),
      fixedFilters: [{ column: 'http_status', operator: 'lt', value: 400 }],
    };
    const answer = await query(a.id, { dataset_key: 'succeeded_calls' }, succeeded);
    expect(answer.rolled).toBe(true);
    // 16+10+12+11+14 = 63 over 5; 20+25 over 2.
    expect(answer.rows).toEqual([
      { route: 'GET /v1/contacts', method: 'GET', calls: 5, failed_calls: 0, avg_duration_ms: 12.6 },
      { route: 'POST /v1/contacts', method: 'POST', calls: 2, failed_calls: 0, avg_duration_ms: 24 },
      { route: 'search_records', method: 'tools/call', calls: 2, failed_calls: 0, avg_duration_ms: 22.5 },
    ]);
    // Keyset chunks of one group each, in key order (event_type, then day).
    const { compiled } = await query(a.id, { dataset_key: 'usage_activation' });
    const streamed = [];
    for await (const chunk of streamQueryRows(compiled, { chunkSize: 1 })) streamed.push(...chunk);
    const byKeys = [...ACTIVATION].sort((x, y) =>
      `${x.event_type} ${x.occurred_at_day}`.localeCompare(`${y.event_type} ${y.occurred_at_day}`),
    );
    expect(streamed).toEqual(byKeys);
  });

  it('reads a rolled-up day from the rollup, not from the raw rows', async () => {
    // Nov 18's raw rows of A go (the POST at 10:30 and the GET at 11:00): the rolled-up answers keep them.
    await h.db
      .deleteFrom('call_events')
      .where('workspace_id', '=', a.id)
      .where('occurred_at', '>=', '2026-11-18T00:00:00.000Z')
      .where('occurred_at', '<', '2026-11-19T00:00:00.000Z')
      .execute();
    expect(await defaults(a.id)).toEqual({ activation: ACTIVATION, api: API_USAGE });
    // A query the rollup cannot answer reads the raw rows: without them.
    expect((await query(a.id, BY_CREDENTIAL)).rows).toEqual([
      { credential_id: 'cred_1', events: 5 },
      { credential_id: 'cred_2', events: 3 },
      { credential_id: null, events: 1 },
    ]);
  });

  it('drops the days retention is about to reach; those are read raw again', async () => {
    // Three days of retention: the first day kept is Nov 20 (a day ahead of the window's first whole day).
    const cut = await rollUpCallEventDays(h.db, NOW, 3);
    expect(cut.removed).toBe(9); // Oct 1: 1, Nov 17: 4, Nov 18: 3, Nov 19: 1
    expect(await state()).toEqual({
      rolled_from: '2026-11-20T00:00:00.000Z',
      rolled_until: '2026-11-21T00:00:00.000Z',
    });
    const days = await h.db.selectFrom('call_event_days').select('day').distinct().execute();
    expect(days.map((d) => d.day)).toEqual(['2026-11-20T00:00:00.000Z']);
    // Nov 18 now comes from the raw rows, which the previous test deleted; every other day is unchanged.
    const { activation } = await defaults(a.id);
    expect(activation).toEqual(ACTIVATION.filter((r) => r.occurred_at_day !== '2026-11-18'));
  });
});
