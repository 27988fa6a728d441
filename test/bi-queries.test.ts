// Custom BI queries over the governed templates: numbers checked against hand-computed sums of seeded rows
// (deals per stage and currency, SLA risk counts, usage per route), local time grains, relative ranges,
// validation naming fields, saved queries and runs on both surfaces, and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/core/ids.ts';
import type { CallEventsTable } from '../src/db/tables.ts';
import { dealRow } from './helpers/bi-seed.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const NOW = '2026-11-21T12:00:00.000Z';
const hoursFromNow = (h: number) => new Date(Date.parse(NOW) + h * 3_600_000).toISOString();

describe('BI queries', () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;

  const run = (ws: TestWorkspace, body: unknown) =>
    h.request('POST', '/v1/bi/queries/run', { token: ws.apiKey, body });

  beforeAll(async () => {
    h = await Harness.start();
    a = await h.workspace('BI A');
    b = await h.workspace('BI B');
    const deal = (stage_key: string, currency: string, amount_cents: number, closed = false) =>
      dealRow(a.id, NOW, stage_key, currency, amount_cents, closed);
    await h.db
      .insertInto('deal_stages')
      .values({
        workspace_id: a.id,
        id: newId('stg'),
        key: 'demo',
        name: 'Demo',
        position: 1,
        kind: 'open',
        probability: null,
        color: null,
        custom_fields: '{}',
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    await h.db
      .insertInto('deals')
      .values([
        deal('new', 'USD', 100),
        deal('new', 'USD', 250),
        deal('new', 'EUR', 300),
        deal('won', 'USD', 1000, true),
        deal('won', 'EUR', 500, true),
        deal('demo', 'USD', 40),
      ])
      .execute();

    const queueId = newId('sq');
    await h.db
      .insertInto('support_queues')
      .values({
        workspace_id: a.id,
        id: queueId,
        key: 'general',
        name: 'General',
        description: null,
        status: 'active',
        default_assignee_id: null,
        default_priority: 'normal',
        first_response_target_minutes: 60,
        next_response_target_minutes: null,
        resolution_target_minutes: 1440,
        custom_fields: '{}',
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    const ticket = (
      status: 'open' | 'solved',
      priority: 'high' | 'normal',
      sla: { frDue?: string; frAt?: string; resDue?: string; resAt?: string },
    ) => ({
      workspace_id: a.id,
      id: newId('tkt'),
      queue_id: queueId,
      subject: 'Help',
      description: null,
      status,
      priority,
      channel: 'email' as const,
      requester_contact_id: null,
      requester_name: null,
      requester_email: null,
      assignee_id: null,
      tags: '[]',
      custom_fields: '{}',
      first_response_due_at: sla.frDue ?? null,
      first_responded_at: sla.frAt ?? null,
      next_response_due_at: null,
      next_responded_at: null,
      resolution_due_at: sla.resDue ?? null,
      resolved_at: sla.resAt ?? null,
      closed_at: null,
      created_at: hoursFromNow(-5),
      updated_at: NOW,
    });
    await h.db
      .insertInto('support_tickets')
      .values([
        // First response overdue (unanswered); resolution still pending.
        ticket('open', 'high', { frDue: hoursFromNow(-1), resDue: hoursFromNow(20) }),
        // Answered in time; resolution overdue.
        ticket('open', 'high', { frDue: hoursFromNow(-1), frAt: hoursFromNow(-2), resDue: hoursFromNow(-1) }),
        // Answered late, resolved in time.
        ticket('solved', 'normal', {
          frDue: hoursFromNow(-4),
          frAt: hoursFromNow(-3),
          resDue: hoursFromNow(10),
          resAt: hoursFromNow(-1),
        }),
        // No SLA targets.
        ticket('open', 'normal', {}),
      ])
      .execute();

    const call = (route: string, occurred_at: string, http_status = 200): CallEventsTable => ({
      workspace_id: a.id,
      id: newId('call'),
      request_id: newId('req'),
      occurred_at,
      kind: 'api_request',
      route,
      method: route.split(' ')[0]!,
      credential_id: null,
      credential_path: 'rest/api_key',
      http_status,
      error_code: http_status >= 400 ? 'resource_not_found' : null,
      duration_ms: 10,
      units: 1,
      billed_units: http_status >= 400 ? 0 : 1,
      caused_by: null,
    });
    await h.db
      .insertInto('call_events')
      .values([
        call('GET /v1/contacts', '2026-01-05T10:00:00.000Z'),
        call('GET /v1/contacts', '2026-01-06T10:00:00.000Z', 404),
        call('GET /v1/contacts', '2026-01-07T10:00:00.000Z'),
        call('POST /v1/contacts', '2026-01-05T11:00:00.000Z'),
        call('POST /v1/contacts', '2026-01-08T11:00:00.000Z'),
        // Europe/Berlin is UTC+1 in January: local 23:30 on the 10th, 00:30 and 01:30 on the 11th.
        call('GET /v1/tasks', '2026-01-10T22:30:00.000Z'),
        call('GET /v1/tasks', '2026-01-10T23:30:00.000Z'),
        call('GET /v1/tasks', '2026-01-11T00:30:00.000Z'),
        // Across the spring-forward night (2026-03-29 01:00Z): local 00:30 on the 29th (+1), 23:30 on the
        // 29th and 00:30 on the 30th (+2).
        call('GET /v1/notes', '2026-03-28T23:30:00.000Z'),
        call('GET /v1/notes', '2026-03-29T21:30:00.000Z'),
        call('GET /v1/notes', '2026-03-29T22:30:00.000Z'),
        // Relative ranges at NOW (2026-11-21): yesterday, 8 days ago.
        call('GET /v1/leads', '2026-11-20T09:00:00.000Z'),
        call('GET /v1/leads', '2026-11-13T09:00:00.000Z'),
      ])
      .execute();
  });
  afterAll(() => h.close());

  it('lists the templates with their columns', async () => {
    const listed = await h.request('GET', '/v1/bi/templates', { token: a.apiKey });
    expect(listed.status).toBe(200);
    const keys = listed.body.templates.map((t: { key: string }) => t.key);
    for (const key of [
      'content_performance',
      'crm_pipeline',
      'support_ticket_health',
      'usage_activation',
      'api_usage',
      'app_events',
    ]) {
      expect(keys).toContain(key);
    }
    const crm = listed.body.templates.find((t: { key: string }) => t.key === 'crm_pipeline');
    expect(crm.columns.find((c: { name: string }) => c.name === 'amount_cents')).toMatchObject({
      type: 'money',
      role: 'measure',
      currency_column: 'currency',
    });
  });

  it('sums deals per stage and currency (the default query), never across currencies', async () => {
    const result = await run(a, { dataset_key: 'crm_pipeline', limit: 25 });
    expect(result.status).toBe(200);
    expect(result.body.result.columns.map((c: { name: string }) => c.name)).toEqual([
      'stage_key',
      'currency',
      'deals',
      'value_cents',
    ]);
    expect(result.body.result.rows).toEqual([
      { stage_key: 'demo', currency: 'USD', deals: 1, value_cents: 40 },
      { stage_key: 'new', currency: 'EUR', deals: 1, value_cents: 300 },
      { stage_key: 'new', currency: 'USD', deals: 2, value_cents: 350 },
      { stage_key: 'won', currency: 'EUR', deals: 1, value_cents: 500 },
      { stage_key: 'won', currency: 'USD', deals: 1, value_cents: 1000 },
    ]);
    expect(result.body.result).toMatchObject({ row_count: 5, truncated: false });
    // The stage name (a custom stage's own) is a dimension to ask for.
    const named = await run(a, {
      dataset_key: 'crm_pipeline',
      dimensions: ['stage_key', 'stage'],
      measures: [
        { aggregate: 'count', as: 'deals' },
        { column: 'amount_cents', aggregate: 'sum', as: 'value_cents' },
      ],
      filters: [{ column: 'stage_key', operator: 'eq', value: 'demo' }],
    });
    expect(named.body.result.rows).toEqual([
      { stage_key: 'demo', stage: 'Demo', currency: 'USD', deals: 1, value_cents: 40 },
    ]);
    expect(result.body.request_id).toBeTruthy();

    // A sum without dimensions is still one row per currency; filters narrow it; the limit truncates.
    const open = await run(a, {
      dataset_key: 'crm_pipeline',
      measures: [{ column: 'amount_cents', aggregate: 'sum', as: 'open_cents' }, { aggregate: 'count' }],
      filters: [{ column: 'is_open', operator: 'eq', value: true }],
      sort: [{ column: 'currency' }],
      limit: 1,
    });
    expect(open.body.result.rows).toEqual([{ currency: 'EUR', open_cents: 300, count: 1 }]);
    expect(open.body.result.truncated).toBe(true);

    const kinds = await run(a, {
      dataset_key: 'crm_pipeline',
      dimensions: ['stage_kind'],
      measures: [
        { column: 'deal_id', aggregate: 'count_distinct' },
        { column: 'amount_cents', aggregate: 'max' },
      ],
      filters: [{ column: 'stage_key', operator: 'in', value: ['new', 'won', 'demo'] }],
    });
    expect(kinds.body.result.rows).toEqual([
      // First measure descending, then the group keys ascending.
      { stage_kind: 'open', currency: 'USD', count_distinct_deal_id: 3, max_amount_cents: 250 },
      { stage_kind: 'open', currency: 'EUR', count_distinct_deal_id: 1, max_amount_cents: 300 },
      { stage_kind: 'won', currency: 'EUR', count_distinct_deal_id: 1, max_amount_cents: 500 },
      { stage_kind: 'won', currency: 'USD', count_distinct_deal_id: 1, max_amount_cents: 1000 },
    ]);
  });

  it('counts SLA risks per status and priority', async () => {
    const result = await run(a, { dataset_key: 'support_ticket_health' });
    expect(result.status).toBe(200);
    expect(result.body.result.rows).toEqual([
      { status: 'open', priority: 'high', tickets: 2, first_response_at_risk: 1, resolution_at_risk: 1 },
      { status: 'open', priority: 'normal', tickets: 1, first_response_at_risk: 0, resolution_at_risk: 0 },
      { status: 'solved', priority: 'normal', tickets: 1, first_response_at_risk: 1, resolution_at_risk: 0 },
    ]);
  });

  it('reads Data Agent execution jobs (agentops_execution_health)', async () => {
    const job = (job_type: string, status: string, attempts: number, duration_ms: number | null) => ({
      workspace_id: a.id,
      id: newId('dajob'),
      title: null,
      job_type,
      status,
      trigger: 'manual',
      plane_id: 'plane_native',
      input: '{}',
      output: null,
      require_review: 0,
      attempts,
      max_attempts: 3,
      progress: null,
      worker_id: null,
      lease_expires_at: null,
      run_id: null,
      log_count: 0,
      error_code: status === 'failed' ? 'internal_error' : null,
      error_message: null,
      review_note: null,
      reviewed_at: null,
      created_by: null,
      queued_at: NOW,
      started_at: NOW,
      finished_at: NOW,
      duration_ms,
      created_at: NOW,
      updated_at: NOW,
    });
    await h.db
      .insertInto('data_agent_execution_jobs')
      .values([
        job('sql_query', 'completed', 1, 100),
        job('sql_query', 'completed', 2, 300),
        job('sync', 'failed', 3, null),
      ])
      .execute();
    const result = await run(a, { dataset_key: 'agentops_execution_health' });
    expect(result.status).toBe(200);
    expect(result.body.result.rows).toEqual([
      {
        job_type: 'sql_query',
        status: 'completed',
        trigger: 'manual',
        jobs: 2,
        attempts: 3,
        avg_duration_ms: 200,
      },
      { job_type: 'sync', status: 'failed', trigger: 'manual', jobs: 1, attempts: 3, avg_duration_ms: null },
    ]);
    const failures = await run(a, {
      dataset_key: 'agentops_execution_health',
      measures: [
        { column: 'failed', aggregate: 'sum', as: 'failures' },
        { column: 'failed', aggregate: 'avg' },
      ],
    });
    expect(failures.body.result.rows).toEqual([{ failures: 1, avg_failed: 0.333333 }]);
    expect((await run(b, { dataset_key: 'agentops_execution_health' })).body.result.rows).toEqual([]);
  });

  it('counts usage per route over an absolute range', async () => {
    const result = await run(a, {
      dataset_key: 'api_usage',
      dimensions: ['route'],
      measures: [
        { aggregate: 'count', as: 'calls' },
        { column: 'failed', aggregate: 'sum', as: 'failures' },
        { column: 'billed_units', aggregate: 'sum' },
      ],
      time_range: { from: '2026-01-01T00:00:00Z', to: '2026-01-09T00:00:00Z' },
      sort: [{ column: 'route', direction: 'desc' }],
    });
    expect(result.status).toBe(200);
    expect(result.body.result.rows).toEqual([
      { route: 'POST /v1/contacts', calls: 2, failures: 0, sum_billed_units: 2 },
      { route: 'GET /v1/contacts', calls: 3, failures: 1, sum_billed_units: 2 },
    ]);
  });

  it('groups by local day in a non-UTC zone, across a DST change', async () => {
    const byDay = (timezone: string, from: string, to: string, route: string) =>
      run(a, {
        dataset_key: 'usage_activation',
        measures: [{ aggregate: 'count', as: 'calls' }],
        filters: [{ column: 'route', operator: 'eq', value: route }],
        time_range: { from, to },
        time_grain: 'day',
        timezone,
      });
    const berlin = await byDay(
      'Europe/Berlin',
      '2026-01-09T00:00:00Z',
      '2026-01-13T00:00:00Z',
      'GET /v1/tasks',
    );
    expect(berlin.status).toBe(200);
    expect(berlin.body.result.rows).toEqual([
      { occurred_at_day: '2026-01-10', calls: 1 },
      { occurred_at_day: '2026-01-11', calls: 2 },
    ]);
    const utc = await byDay('UTC', '2026-01-09T00:00:00Z', '2026-01-13T00:00:00Z', 'GET /v1/tasks');
    expect(utc.body.result.rows).toEqual([
      { occurred_at_day: '2026-01-10', calls: 2 },
      { occurred_at_day: '2026-01-11', calls: 1 },
    ]);
    const spring = await byDay(
      'Europe/Berlin',
      '2026-03-25T00:00:00Z',
      '2026-04-02T00:00:00Z',
      'GET /v1/notes',
    );
    expect(spring.body.result.rows).toEqual([
      { occurred_at_day: '2026-03-29', calls: 2 },
      { occurred_at_day: '2026-03-30', calls: 1 },
    ]);
    const month = await run(a, {
      dataset_key: 'usage_activation',
      dimensions: ['route'],
      measures: [{ aggregate: 'count', as: 'calls' }],
      filters: [{ column: 'route', operator: 'starts_with', value: 'GET /v1/t' }],
      time_range: { from: '2026-01-01T00:00:00Z', to: '2026-02-01T00:00:00Z' },
      time_grain: 'week',
      timezone: 'Europe/Berlin',
    });
    // Monday 2026-01-05 holds the 10th and the 11th (a Sunday, local).
    expect(month.body.result.rows).toEqual([
      { route: 'GET /v1/tasks', occurred_at_week: '2026-01-05', calls: 3 },
    ]);
  });

  it('resolves relative ranges at the call time', async () => {
    const count = async (relative: string) => {
      const result = await run(a, {
        dataset_key: 'api_usage',
        measures: [{ aggregate: 'count', as: 'calls' }],
        filters: [{ column: 'route', operator: 'eq', value: 'GET /v1/leads' }],
        time_range: { relative },
      });
      expect(result.status).toBe(200);
      return result.body.result.rows[0].calls;
    };
    expect(await count('today')).toBe(0);
    expect(await count('yesterday')).toBe(1);
    expect(await count('last_7_days')).toBe(1);
    expect(await count('last_30_days')).toBe(2);
    expect(await count('this_month')).toBe(2);
    expect(await count('last_month')).toBe(0);
  });

  it('names the field of every invalid name, value or combination, and saves nothing', async () => {
    const bad = async (body: Record<string, unknown>, field: string) => {
      const result = await run(a, { dataset_key: 'crm_pipeline', ...body });
      expect(result.status).toBe(400);
      expect(result.body.error.code).toBe('validation_failed');
      expect(result.body.error.field_errors.map((e: { field: string }) => e.field)).toContain(field);
    };
    await bad({ measures: [{ column: 'amount', aggregate: 'sum' }] }, 'measures[0].column');
    await bad({ measures: [{ column: 'stage', aggregate: 'sum' }] }, 'measures[0].aggregate');
    await bad({ dimensions: ['stage_key', 'secret_column'] }, 'dimensions[1]');
    await bad({ filters: [{ column: 'amount_cents', operator: 'gt', value: 'lots' }] }, 'filters[0].value');
    await bad({ filters: [{ column: 'stage', operator: 'in', value: 'new' }] }, 'filters[0].value');
    await bad({ filters: [{ column: 'stage', operator: 'like', value: 'x' }] }, 'filters[0].operator');
    await bad({ sort: [{ column: 'nope' }] }, 'sort[0].column');
    await bad({ dataset_key: 'payroll' }, 'dataset_key');
    await bad({ time_grain: 'day' }, 'time_range');
    await bad({ time_grain: 'day', time_range: { relative: 'today' }, timezone: 'Mars/Olympus' }, 'timezone');
    await bad({ measures: [{ aggregate: 'sum' }] }, 'measures[0].column');
    await bad({ limit: 1001 }, 'limit');
    await bad({ select: '1; drop table deals' }, 'select');
    const saved = await h.request('GET', '/v1/bi/queries', { token: a.apiKey });
    for (const query of saved.body.queries) expect(query.dataset_key).not.toBe('payroll');
  });

  it('saves the query and records a run, on REST and MCP', async () => {
    const result = await run(a, { dataset_key: 'crm_pipeline', name: 'Pipeline', limit: 2 });
    const { query, run: biRun } = result.body;
    expect(query).toMatchObject({ name: 'Pipeline', dataset_key: 'crm_pipeline', last_run_id: biRun.id });
    expect(query.definition).toMatchObject({
      dataset_key: 'crm_pipeline',
      limit: 2,
      dimensions: ['stage_key'],
    });
    expect(biRun).toMatchObject({
      status: 'completed',
      trigger: 'manual',
      attempts: 1,
      run_type: 'bi_query',
      row_count: 2,
      related: [{ type: 'bi_query', id: query.id }],
      error: null,
    });
    const fetched = await h.request('GET', `/v1/bi/runs/${biRun.id}`, { token: a.apiKey });
    expect(fetched.body.run).toEqual(biRun);
    const lookup = await h.request('GET', `/v1/bi/queries/${query.id}`, { token: a.apiKey });
    expect(lookup.body.query).toEqual(query);

    const viaMcp = await h.callTool(a.mcpToken, 'run_bi_query', {
      dataset_key: 'crm_pipeline',
      dimensions: ['currency'],
      measures: [{ column: 'amount_cents', aggregate: 'sum' }],
    });
    expect(viaMcp.result.isError).toBeFalsy();
    expect(viaMcp.body.result.rows).toEqual([
      { currency: 'USD', sum_amount_cents: 1390 },
      { currency: 'EUR', sum_amount_cents: 800 },
    ]);
    const runs = await h.callTool(a.mcpToken, 'list_bi_runs', { limit: 1 });
    expect(runs.body.runs[0].id).toBe(viaMcp.body.run.id);
    expect(runs.body.next_cursor).toBeTruthy();
    const one = await h.callTool(a.mcpToken, 'get_bi_run', { run_id: biRun.id });
    expect(one.body.run.id).toBe(biRun.id);
    const queries = await h.callTool(a.mcpToken, 'list_bi_queries', {
      dataset_key: 'crm_pipeline',
      limit: 100,
    });
    expect(queries.body.queries.map((q: { id: string }) => q.id)).toContain(query.id);
  });

  it("keeps each workspace's data, queries and runs to itself", async () => {
    const mine = await run(a, { dataset_key: 'crm_pipeline' });
    const theirs = await run(b, { dataset_key: 'crm_pipeline' });
    expect(theirs.status).toBe(200);
    expect(theirs.body.result.rows).toEqual([]);
    expect((await h.request('GET', `/v1/bi/runs/${mine.body.run.id}`, { token: b.apiKey })).status).toBe(404);
    const query = await h.request('GET', `/v1/bi/queries/${mine.body.query.id}`, { token: b.apiKey });
    expect(query.status).toBe(404);
    expect(query.body.error.code).toBe('resource_not_found');
    const listed = await h.request('GET', '/v1/bi/runs?limit=100', { token: b.apiKey });
    const ids = listed.body.runs.map((r: { id: string }) => r.id);
    expect(ids[0]).toBe(theirs.body.run.id);
    expect(ids).not.toContain(mine.body.run.id);
  });
});
