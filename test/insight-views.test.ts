// Insight views through the real app: Promote to BI (an Object Analytics slice saved and refreshed with the
// numbers of the seeded application events), BI template sources, strict sources, update and archive, a
// scheduled view refreshing through the scheduler (and failing visibly when its metric is deprecated),
// and tenant isolation, on REST and MCP.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const clock = new MutableClock(new Date('2026-11-21T12:30:00.000Z'));
let h: Harness;
let a: TestWorkspace;
let b: TestWorkspace;

const call = (method: string, url: string, body?: unknown, token = a.apiKey) =>
  h.request(method, url, { token, body });
const fields = (res: { body: any }) => res.body.error?.field_errors?.map((e: any) => e.field);

const ev = (object: string, event_name: string, occurred_at: string, user: Record<string, string>) => {
  const [app, object_type, object_id] = object.split(':');
  return { app, object_type, object_id, event_name, occurred_at, ...user };
};

async function seed(ws: TestWorkspace, events: unknown[]) {
  const res = await call('POST', '/v1/insights/app-events', { events }, ws.apiKey);
  expect([res.status, res.body.accepted], res.text).toEqual([202, events.length]);
}

async function view(body: Record<string, unknown>, token = a.apiKey) {
  const res = await call('POST', '/v1/insights/views', { name: 'View', ...body }, token);
  expect(res.status, res.text).toBe(201);
  return res.body.insight_view as Record<string, any>;
}

const SHOP_7D = { type: 'object_analytics', app: 'shop', window: '7d' };

beforeAll(async () => {
  h = await Harness.start({ clock, env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' } });
  a = await h.workspace('Insights A');
  b = await h.workspace('Insights B');
  await seed(a, [
    ev('shop:order:ord_1', 'order.created', '2026-11-20T10:15:00Z', { user_id: 'u1' }),
    ev('shop:order:ord_1', 'order.paid', '2026-11-21T09:00:00Z', { user_id: 'u2' }),
    ev('shop:order:ord_1', 'order.viewed', '2026-11-21T12:10:00Z', { user_id: 'u1' }),
    ev('shop:order:ord_2', 'order.created', '2026-11-19T08:00:00Z', { user_id: 'u3' }),
    ev('shop:order:ord_2', 'order.paid', '2026-11-19T08:30:00Z', { user_id: 'u3' }),
    ev('shop:cart:cart_9', 'cart.opened', '2026-11-21T11:45:00Z', { anonymous_id: 'anon_2' }),
    ev('blog:post:p_1', 'post.read', '2026-11-18T07:00:00Z', { user_id: 'u1' }),
  ]);
  await seed(b, [ev('shop:order:ord_1', 'order.paid', '2026-11-21T10:00:00Z', { user_id: 'intruder' })]);
  for (const [name, amount_cents] of [
    ['Alpha', 120_000],
    ['Beta', 80_000],
  ] as const) {
    const deal = await call('POST', '/v1/deals', { name, amount_cents, currency: 'EUR' });
    expect(deal.status, deal.text).toBe(201);
  }
});
afterAll(() => h.close());

describe(`insight views (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('promotes an Object Analytics slice to BI and refreshes it with the seeded numbers', async () => {
    const promoted = await view({
      name: 'Shop objects',
      question: 'Which shop objects are busiest?',
      source: SHOP_7D,
    });
    expect(promoted).toMatchObject({
      source: SHOP_7D,
      report_style: 'table',
      dimensions: ['app', 'object_type', 'object_id'],
      measures: [{ column: 'events' }, { column: 'unique_actors' }],
      refresh_behaviour: 'manual',
      ever_refreshed: false,
      last_refreshed_at: null,
      last_refresh_status: null,
      scheduled: false,
      last_result: null,
    });
    const refreshed = await call('POST', `/v1/insights/views/${promoted.id}/refresh`);
    expect(refreshed.status, refreshed.text).toBe(200);
    const { insight_view: after, run } = refreshed.body;
    // Hand-computed: ord_1 3 events by u1 and u2; ord_2 2 by u3; cart_9 1 anonymous; blog is another app.
    expect(after.last_result.rows).toEqual([
      { app: 'shop', object_type: 'order', object_id: 'ord_1', events: 3, unique_actors: 2 },
      { app: 'shop', object_type: 'order', object_id: 'ord_2', events: 2, unique_actors: 1 },
      { app: 'shop', object_type: 'cart', object_id: 'cart_9', events: 1, unique_actors: 1 },
    ]);
    expect(after).toMatchObject({
      ever_refreshed: true,
      last_refreshed_at: clock.current.toISOString(),
      last_refresh_status: 'completed',
      last_refresh_run_id: run.id,
    });
    expect(run).toMatchObject({ status: 'completed', trigger: 'manual', row_count: 3 });
    expect(run.related).toEqual([{ type: 'insight_view', id: promoted.id }]);

    // The same numbers as the Object Analytics page it was promoted from.
    const page = await call('GET', '/v1/insights/app-events?app=shop&window=7d');
    expect(page.body.objects.map((o: any) => [o.object_id, o.events, o.unique_actors])).toEqual(
      after.last_result.rows.map((r: any) => [r.object_id, r.events, r.unique_actors]),
    );

    const narrow = await view({
      source: {
        type: 'object_analytics',
        app: 'shop',
        object_type: 'order',
        window: '24h',
        sort: 'last_seen',
      },
      dimensions: ['object_id'],
      measures: [{ column: 'events' }, { column: 'last_seen' }],
      report_style: 'bar',
    });
    const rows = (await call('POST', `/v1/insights/views/${narrow.id}/refresh`)).body.insight_view
      .last_result;
    expect(rows.columns.map((c: any) => [c.name, c.type])).toEqual([
      ['object_id', 'string'],
      ['events', 'integer'],
      ['last_seen', 'timestamp'],
    ]);
    expect(rows.rows).toEqual([{ object_id: 'ord_1', events: 2, last_seen: page.body.objects[0].last_seen }]);
  });

  it('runs a BI template source through the Custom BI core', async () => {
    const created = await h.callTool(a.mcpToken, 'create_insight_view', {
      name: 'Deals per stage',
      source: {
        type: 'bi_template',
        dataset_key: 'crm_pipeline',
        query: { sort: [{ column: 'stage_key' }] },
      },
      dimensions: ['stage_key', 'currency'],
      measures: [
        { aggregate: 'count', as: 'deals' },
        { column: 'amount_cents', aggregate: 'sum', as: 'value_cents' },
      ],
    });
    expect(created.result.isError, JSON.stringify(created.body)).toBeFalsy();
    const id = created.body.insight_view.id;
    const refreshed = await h.callTool(a.mcpToken, 'refresh_insight_view', { view_id: id });
    expect(refreshed.body.insight_view.last_result.rows).toEqual([
      { stage_key: 'new', currency: 'EUR', deals: 2, value_cents: 200_000 },
    ]);
    const defaults = await view({ source: { type: 'bi_template', dataset_key: 'crm_pipeline' } });
    expect(defaults.dimensions).toEqual(['stage_key']);
    const listed = await h.callTool(a.mcpToken, 'list_insight_views', { source_type: 'bi_template' });
    expect(listed.body.insight_views.map((v: any) => v.id)).toEqual([defaults.id, id]);
  });

  it('checks sources strictly, naming the field, and saves nothing', async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ source: { ...SHOP_7D, dataset_key: 'crm_pipeline' } }, ['source.dataset_key']],
      [{ source: { type: 'bi_template', dataset_key: 'crm_pipeline', window: '7d' } }, ['source.window']],
      [{ source: SHOP_7D, measures: [{ column: 'amount' }] }, ['measures[0]']],
      [{ source: SHOP_7D, dimensions: ['stage'] }, ['dimensions[0]']],
      [{ source: { ...SHOP_7D, from: '2026-11-20T00:00:00Z' } }, ['source.from']],
      [{ source: { ...SHOP_7D, colour: 'red' } }, ['source.colour']],
      [
        { source: { type: 'bi_template', dataset_key: 'crm_pipeline' }, dimensions: ['nope'] },
        ['dimensions[0]'],
      ],
      [{ source: { type: 'bi_template', dataset_key: 'no_such' } }, ['source.dataset_key']],
      [{ source: { type: 'bi_dataset', dataset_key: 'crm_pipeline' } }, ['source.dataset_key']],
      [{ source: { type: 'bi_dataset', dataset_key: 'not_saved' } }, ['source.dataset_key']],
    ];
    const before = (await call('GET', '/v1/insights/views')).body.insight_views.length;
    for (const [body, expected] of cases) {
      const res = await call('POST', '/v1/insights/views', { name: 'Bad', ...body });
      expect([res.status, fields(res)], JSON.stringify(body)).toEqual([400, expected]);
    }
    const filter = await call('POST', '/v1/insights/views', {
      name: 'Bad',
      source: {
        type: 'bi_template',
        dataset_key: 'crm_pipeline',
        query: { filters: [{ column: 'nope', operator: 'eq', value: 1 }] },
      },
    });
    expect(fields(filter)[0]).toMatch(/^source\.query\.filters\[0\]/);
    expect((await call('GET', '/v1/insights/views')).body.insight_views.length).toBe(before);
  });

  it('updates and archives a view (idempotent), hiding it from reads', async () => {
    const v = await view({ name: 'Editable', source: SHOP_7D });
    const renamed = await call('PATCH', `/v1/insights/views/${v.id}`, {
      name: 'Edited',
      report_style: 'pie',
    });
    expect(renamed.body.insight_view).toMatchObject({ name: 'Edited', report_style: 'pie' });
    const rekinded = await call('PATCH', `/v1/insights/views/${v.id}`, {
      source: { type: 'bi_template', dataset_key: 'crm_pipeline' },
    });
    expect(rekinded.status, rekinded.text).toBe(200);
    expect(rekinded.body.insight_view.dimensions).toEqual(['stage_key']);
    expect(fields(await call('PATCH', `/v1/insights/views/${v.id}`, {}))).toEqual(['(body)']);
    const first = await call('DELETE', `/v1/insights/views/${v.id}`);
    expect(first.body.insight_view.archived_at).toBe(clock.current.toISOString());
    const again = await call('DELETE', `/v1/insights/views/${v.id}`);
    expect(again.body.insight_view.archived_at).toBe(first.body.insight_view.archived_at);
    expect((await call('GET', `/v1/insights/views/${v.id}`)).status).toBe(404);
    expect((await call('POST', `/v1/insights/views/${v.id}/refresh`)).status).toBe(404);
    const ids = (await call('GET', '/v1/insights/views')).body.insight_views.map((x: any) => x.id);
    expect(ids).not.toContain(v.id);
  });

  it('keeps views apart per workspace', async () => {
    const mine = await view({ name: 'Mine', source: SHOP_7D });
    for (const [method, url, body] of [
      ['GET', `/v1/insights/views/${mine.id}`, undefined],
      ['POST', `/v1/insights/views/${mine.id}/refresh`, undefined],
      ['PATCH', `/v1/insights/views/${mine.id}`, { name: 'Stolen' }],
      ['DELETE', `/v1/insights/views/${mine.id}`, undefined],
    ] as const) {
      expect((await call(method, url, body, b.apiKey)).status, `${method} ${url}`).toBe(404);
    }
    const scheduled = await call(
      'POST',
      '/v1/bi/scheduled-artifacts',
      { name: 'Steal', target: { type: 'insight_view', id: mine.id }, cadence: 'hourly' },
      b.apiKey,
    );
    expect(scheduled.status).toBe(404);
    expect((await call('GET', '/v1/insights/views', undefined, b.apiKey)).body.insight_views).toEqual([]);
    const theirs = await view({ name: 'Theirs', source: SHOP_7D }, b.apiKey);
    const refreshed = await call('POST', `/v1/insights/views/${theirs.id}/refresh`, undefined, b.apiKey);
    expect(refreshed.body.insight_view.last_result.rows).toEqual([
      { app: 'shop', object_type: 'order', object_id: 'ord_1', events: 1, unique_actors: 1 },
    ]);
  });
});

/** The scheduled runs of a schedule, oldest first. */
async function scheduledRuns(scheduleId: string) {
  const rows = await h.db
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', a.id)
    .where('trigger', '=', 'schedule')
    .orderBy('id')
    .execute();
  return rows.filter((row) => JSON.parse(row.input_summary).scheduled_artifact_id === scheduleId);
}

async function settled(scheduleId: string, count: number) {
  await vi.waitFor(
    async () => {
      await h.worker!.tick();
      const rows = await scheduledRuns(scheduleId);
      if (rows.length !== count || rows.some((r) => r.status === 'queued' || r.status === 'running'))
        throw new Error(`runs: ${JSON.stringify(rows.map((r) => r.status))}`);
    },
    { timeout: 30_000, interval: 50 },
  );
  return scheduledRuns(scheduleId);
}

describe(`scheduled insight views (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('refreshes through the scheduler, then shows a failed scheduled refresh', async () => {
    const metric = await call('POST', '/v1/bi/metrics', {
      key: 'eur_value',
      name: 'EUR value',
      dataset_key: 'crm_pipeline',
      expression: "count(deal_id where currency = 'EUR')",
    });
    expect(metric.status, metric.text).toBe(201);
    const v = await view({
      name: 'Scheduled',
      source: { type: 'bi_template', dataset_key: 'crm_pipeline' },
      dimensions: ['stage_key'],
      measures: [{ metric: 'eur_value' }],
    });
    const schedule = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Hourly view',
      target: { type: 'insight_view', id: v.id },
      cadence: 'hourly',
      minute: 0,
    });
    expect(schedule.status, schedule.text).toBe(201);
    const scheduleId = schedule.body.scheduled_artifact.id;
    const before = (await call('GET', `/v1/insights/views/${v.id}`)).body.insight_view;
    expect(before).toMatchObject({
      scheduled: true,
      refresh_behaviour: 'scheduled',
      schedule_ids: [scheduleId],
      next_refresh_at: '2026-11-21T13:00:00.000Z',
      ever_refreshed: false,
    });

    clock.current = new Date('2026-11-21T13:00:30.000Z');
    const [ran] = await settled(scheduleId, 1);
    expect(ran).toMatchObject({ status: 'completed', trigger: 'schedule' });
    const after = (await call('GET', `/v1/insights/views/${v.id}`)).body.insight_view;
    expect(after).toMatchObject({
      ever_refreshed: true,
      last_refresh_status: 'completed',
      last_refresh_run_id: ran!.id,
      next_refresh_at: '2026-11-21T14:00:00.000Z',
    });
    expect(after.last_result.rows).toEqual([{ stage_key: 'new', eur_value: 2 }]);
    const run = (await call('GET', `/v1/bi/runs/${ran!.id}`)).body.run;
    expect(run.related).toContainEqual({ type: 'insight_view', id: v.id });
    expect(run.row_count).toBe(1);

    // Deprecated: the next scheduled refresh fails, and the view says so (its last result stays).
    const deprecated = await call('PATCH', `/v1/bi/metrics/${metric.body.metric.id}`, {
      status: 'deprecated',
    });
    expect(deprecated.status).toBe(200);
    clock.current = new Date('2026-11-21T14:00:30.000Z');
    const runs = await settled(scheduleId, 2);
    expect(runs[1]).toMatchObject({ status: 'failed', error_code: 'validation_failed' });
    const failed = (await call('GET', `/v1/insights/views/${v.id}`)).body.insight_view;
    expect(failed).toMatchObject({
      ever_refreshed: true,
      last_refreshed_at: after.last_refreshed_at,
      last_refresh_status: 'failed',
      last_refresh_run_id: runs[1]!.id,
      last_refresh_error: { code: 'validation_failed' },
    });
    expect(failed.last_result).toEqual(after.last_result);
  });
});
