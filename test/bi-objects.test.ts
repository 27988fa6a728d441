// Saved BI objects through the real app: reports (create, refresh with hand-computed numbers, governance of
// draft metrics), dashboards (tiles checked per workspace, archived targets shown archived), and
// update_bi_object / archive_bi_object (strict per collection, metric approval, idempotent archive,
// isolation), on REST and MCP.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dealRow } from './helpers/bi-seed.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const NOW = '2026-11-21T12:00:00.000Z';
let h: Harness;
let a: TestWorkspace;
let b: TestWorkspace;
let otherKey: string;

const call = (method: string, url: string, body?: unknown, token = a.apiKey) =>
  h.request(method, url, { token, body });
const fields = (res: { body: any }) => res.body.error?.field_errors?.map((e: any) => e.field);

const PIPELINE_QUERY = {
  dataset_key: 'crm_pipeline',
  dimensions: ['stage_key', 'currency'],
  measures: [
    { aggregate: 'count', as: 'deals' },
    { column: 'amount_cents', aggregate: 'sum', as: 'value_cents' },
  ],
  sort: [{ column: 'stage_key' }, { column: 'currency' }],
};
// Hand-computed from the seeded deals below.
const PIPELINE_ROWS = [
  { stage_key: 'new', currency: 'EUR', deals: 1, value_cents: 300 },
  { stage_key: 'new', currency: 'USD', deals: 2, value_cents: 350 },
  { stage_key: 'won', currency: 'EUR', deals: 1, value_cents: 500 },
  { stage_key: 'won', currency: 'USD', deals: 1, value_cents: 1000 },
];

async function report(body: Record<string, unknown>, token = a.apiKey) {
  const res = await call(
    'POST',
    '/v1/bi/reports',
    { name: 'Pipeline', query: PIPELINE_QUERY, ...body },
    token,
  );
  expect(res.status, res.text).toBe(201);
  return res.body.report as Record<string, any>;
}

async function metric(key: string, token = a.apiKey) {
  const res = await call(
    'POST',
    '/v1/bi/metrics',
    { key, name: key, dataset_key: 'crm_pipeline', expression: "count(deal_id where stage_kind = 'won')" },
    token,
  );
  expect(res.status, res.text).toBe(201);
  return res.body.metric as Record<string, any>;
}

beforeAll(async () => {
  // The worker starts the job queue, which create_bi_export enqueues into (PostgreSQL: pg-boss's schema).
  h = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' } });
  h.clock.current = new Date(NOW);
  a = await h.workspace('Objects A');
  b = await h.workspace('Objects B');
  otherKey = (await h.createCredential(a.id, 'api_key')).token;
  const deal = (workspace_id: string, stage_key: string, currency: string, amount_cents: number) =>
    dealRow(workspace_id, NOW, stage_key, currency, amount_cents, stage_key === 'won');

  await h.db
    .insertInto('deals')
    .values([
      deal(a.id, 'new', 'USD', 100),
      deal(a.id, 'new', 'USD', 250),
      deal(a.id, 'new', 'EUR', 300),
      deal(a.id, 'won', 'USD', 1000),
      deal(a.id, 'won', 'EUR', 500),
      // Another workspace's deal: never in A's numbers.
      deal(b.id, 'won', 'USD', 99_999),
    ])
    .execute();
});
afterAll(() => h.close());

describe(`BI reports (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('saves a report, refreshes it with hand-computed numbers and records a manual BI run', async () => {
    const created = await report({ description: 'Deals per stage', visualization: 'bar' });
    expect(created).toMatchObject({
      name: 'Pipeline',
      dataset_key: 'crm_pipeline',
      visualization: 'bar',
      ever_refreshed: false,
      last_refreshed_at: null,
      last_refresh_status: null,
      last_result: null,
      scheduled: false,
      archived_at: null,
    });
    const refreshed = await call('POST', `/v1/bi/reports/${created.id}/refresh`);
    expect(refreshed.status, refreshed.text).toBe(200);
    const { report: after, run } = refreshed.body;
    expect(after.last_result.rows).toEqual(PIPELINE_ROWS);
    expect(after).toMatchObject({
      ever_refreshed: true,
      last_refreshed_at: NOW,
      last_refresh_status: 'completed',
      last_refresh_run_id: run.id,
      last_refresh_error: null,
    });
    expect(run).toMatchObject({ status: 'completed', trigger: 'manual', row_count: 4 });
    expect(run.related).toContainEqual({ type: 'bi_report', id: created.id });
    const fetched = await call('GET', `/v1/bi/runs/${run.id}`);
    expect(fetched.body.run.status).toBe('completed');

    const viaMcp = await h.callTool(a.mcpToken, 'list_bi_reports', { dataset_key: 'crm_pipeline' });
    const listed = viaMcp.body.reports.find((r: any) => r.id === created.id);
    expect(listed.last_result.rows).toEqual(PIPELINE_ROWS);
    expect((await call('GET', `/v1/bi/reports/${created.id}`)).body.report).toEqual(after);
  });

  it('checks the query at create, naming query.<field>, and changes nothing', async () => {
    const bad = await call('POST', '/v1/bi/reports', {
      name: 'Bad',
      query: { dataset_key: 'crm_pipeline', dimensions: ['nope'] },
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['query.dimensions[0]']);
    const unknown = await call('POST', '/v1/bi/reports', {
      name: 'Bad',
      query: PIPELINE_QUERY,
      colour: 'red',
    });
    expect(fields(unknown)).toEqual(['colour']);
    const style = await call('POST', '/v1/bi/reports', {
      name: 'Bad',
      query: PIPELINE_QUERY,
      visualization: 'map',
    });
    expect(fields(style)).toEqual(['visualization']);
    const listed = await call('GET', '/v1/bi/reports');
    expect(listed.body.reports.map((r: any) => r.name)).not.toContain('Bad');
  });

  it("uses its author's draft metric, refuses another's until approved through update_bi_object", async () => {
    const draft = await metric('won_value');
    const query = { dataset_key: 'crm_pipeline', measures: [{ metric: 'won_value' }] };
    const mine = await report({ name: 'Won value', query });
    const refreshed = await call('POST', `/v1/bi/reports/${mine.id}/refresh`);
    expect(refreshed.body.report.last_result.rows).toEqual([{ won_value: 2 }]);
    expect(refreshed.body.run.related).toContainEqual({ type: 'bi_metric', id: draft.id });

    // Another credential of the same workspace: a draft is not theirs.
    const refused = await call('POST', '/v1/bi/reports', { name: 'Theirs', query }, otherKey);
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['query.measures[0].metric']);

    const approved = await call('PATCH', `/v1/bi/metrics/${draft.id}`, { status: 'approved' });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body).toMatchObject({ collection: 'metrics', id: draft.id, archived_at: null });
    expect(approved.body.object.status).toBe('approved');
    const theirs = await report({ name: 'Theirs', query }, otherKey);
    expect(theirs.created_by).not.toBe(mine.created_by);
    const ran = await call('POST', '/v1/bi/queries/run', query, otherKey);
    expect(ran.body.result.rows).toEqual([{ won_value: 2 }]);
  });

  it('records a failed refresh when the query no longer runs and keeps the last result', async () => {
    await metric('won_again');
    const saved = await report({
      name: 'Fragile',
      query: { dataset_key: 'crm_pipeline', measures: [{ metric: 'won_again' }] },
    });
    const first = await call('POST', `/v1/bi/reports/${saved.id}/refresh`);
    expect(first.body.report.last_result.rows).toEqual([{ won_again: 2 }]);
    const m = (await call('GET', '/v1/bi/metrics?status=draft')).body.metrics.find(
      (x: any) => x.key === 'won_again',
    );
    expect((await call('PATCH', `/v1/bi/metrics/${m.id}`, { status: 'deprecated' })).status).toBe(200);
    h.clock.advance(60_000);
    const failed = await call('POST', `/v1/bi/reports/${saved.id}/refresh`);
    expect(failed.status, failed.text).toBe(200);
    expect(failed.body.run).toMatchObject({ status: 'failed', error: { code: 'validation_failed' } });
    expect(failed.body.report).toMatchObject({
      ever_refreshed: true,
      last_refreshed_at: NOW,
      last_refresh_status: 'failed',
      last_refresh_run_id: failed.body.run.id,
      last_refresh_error: { code: 'validation_failed' },
    });
    expect(failed.body.report.last_result.rows).toEqual([{ won_again: 2 }]);
    h.clock.current = new Date(NOW);
  });

  it('keeps reports apart per workspace', async () => {
    const mine = await report({ name: 'Private' });
    expect((await call('GET', `/v1/bi/reports/${mine.id}`, undefined, b.apiKey)).status).toBe(404);
    expect((await call('POST', `/v1/bi/reports/${mine.id}/refresh`, undefined, b.apiKey)).status).toBe(404);
    expect((await call('PATCH', `/v1/bi/reports/${mine.id}`, { name: 'Mine' }, b.apiKey)).status).toBe(404);
    expect((await call('DELETE', `/v1/bi/reports/${mine.id}`, undefined, b.apiKey)).status).toBe(404);
    const theirs = await report({ name: 'B pipeline' }, b.apiKey);
    const refreshed = await call('POST', `/v1/bi/reports/${theirs.id}/refresh`, undefined, b.apiKey);
    expect(refreshed.body.report.last_result.rows).toEqual([
      { stage_key: 'won', currency: 'USD', deals: 1, value_cents: 99_999 },
    ]);
    const listed = await call('GET', '/v1/bi/reports', undefined, b.apiKey);
    expect(listed.body.reports.map((r: any) => r.id)).toEqual([theirs.id]);
  });
});

describe(`BI dashboards (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('creates tiles over reports and metrics; a missing or foreign target is resource_not_found', async () => {
    const r = await report({ name: 'Tile report' });
    const m = await metric('tile_metric');
    const foreign = await report({ name: 'Foreign' }, b.apiKey);
    const tiles = [
      { title: 'Pipeline', ref: { type: 'report', id: r.id }, position: { x: 0, y: 0, w: 6, h: 4 } },
      { title: 'Won', ref: { type: 'metric', id: m.id }, position: { x: 6, y: 0, w: 6, h: 4 } },
    ];
    const created = await call('POST', '/v1/bi/dashboards', { name: 'Sales', tiles });
    expect(created.status, created.text).toBe(201);
    expect(created.body.dashboard.tiles).toEqual([
      { ...tiles[0], target: { status: 'active', name: 'Tile report' } },
      { ...tiles[1], target: { status: 'active', name: 'tile_metric', metric_status: 'draft' } },
    ]);

    for (const ref of [
      { type: 'report', id: foreign.id },
      { type: 'report', id: 'birep_missing' },
      { type: 'insight_view', id: r.id },
    ]) {
      const refused = await call('POST', '/v1/bi/dashboards', {
        name: 'Broken',
        tiles: [{ title: 'x', ref, position: { x: 0, y: 0, w: 1, h: 1 } }],
      });
      expect(refused.status, JSON.stringify(ref)).toBe(404);
      expect(refused.body.error.code).toBe('resource_not_found');
    }
    const overlapping = await call('POST', '/v1/bi/dashboards', {
      name: 'Overlap',
      tiles: [tiles[0], { ...tiles[1], position: { x: 5, y: 3, w: 2, h: 2 } }],
    });
    expect(fields(overlapping)).toEqual(['tiles[1].position']);
    const wide = await call('POST', '/v1/bi/dashboards', {
      name: 'Wide',
      tiles: [{ ...tiles[0], position: { x: 8, y: 0, w: 6, h: 1 } }],
    });
    expect(fields(wide)).toEqual(['tiles[0].position.w']);
    const names = (await call('GET', '/v1/bi/dashboards')).body.dashboards.map((d: any) => d.name);
    expect(names).toEqual(['Sales']);
  });

  it('shows an archived target as archived on its tiles, on lookup, list and MCP', async () => {
    const r = await report({ name: 'Soon archived' });
    const created = await call('POST', '/v1/bi/dashboards', {
      name: 'With archive',
      tiles: [{ title: 'Old', ref: { type: 'report', id: r.id }, position: { x: 0, y: 0, w: 12, h: 2 } }],
    });
    const id = created.body.dashboard.id;
    const archived = await call('DELETE', `/v1/bi/reports/${r.id}`);
    expect(archived.status, archived.text).toBe(200);
    expect(archived.body).toMatchObject({ collection: 'reports', id: r.id, archived_at: NOW });
    const lookup = await call('GET', `/v1/bi/dashboards/${id}`);
    expect(lookup.body.dashboard.tiles[0].target).toEqual({ status: 'archived', name: 'Soon archived' });
    const viaMcp = await h.callTool(a.mcpToken, 'list_bi_dashboards', {});
    const listed = viaMcp.body.dashboards.find((d: any) => d.id === id);
    expect(listed.tiles[0].target.status).toBe('archived');
    // A new tile cannot point at an archived report.
    const patched = await call('PATCH', `/v1/bi/dashboards/${id}`, {
      tiles: [{ title: 'Again', ref: { type: 'report', id: r.id }, position: { x: 0, y: 0, w: 1, h: 1 } }],
    });
    expect(patched.status).toBe(404);
    expect((await call('GET', `/v1/bi/dashboards/${id}`, undefined, b.apiKey)).status).toBe(404);
  });
});

describe(`update_bi_object and archive_bi_object (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('validates the body strictly per collection, naming the field', async () => {
    const d = (await call('POST', '/v1/bi/dashboards', { name: 'Strict' })).body.dashboard;
    const m = await metric('strict_metric');
    const q = (await call('POST', '/v1/bi/queries/run', { dataset_key: 'crm_pipeline' })).body.query;
    const cases: [string, unknown, string[]][] = [
      [`/v1/bi/dashboards/${d.id}`, { status: 'approved' }, ['status']],
      [`/v1/bi/dashboards/${d.id}`, { name: 'Ok', visualization: 'bar' }, ['visualization']],
      [`/v1/bi/metrics/${m.id}`, { tiles: [] }, ['tiles']],
      [`/v1/bi/metrics/${m.id}`, { status: 'active' }, ['status']],
      [`/v1/bi/queries/${q.id}`, { description: 'x' }, ['description']],
      [`/v1/bi/queries/${q.id}`, { bogus: 1 }, ['bogus']],
      [`/v1/bi/widgets/${d.id}`, { name: 'x' }, ['collection']],
      [`/v1/bi/dashboards/${d.id}`, {}, ['(body)']],
    ];
    for (const [url, body, expected] of cases) {
      const res = await call('PATCH', url, body);
      expect([res.status, fields(res)], `${url} ${JSON.stringify(body)}`).toEqual([400, expected]);
    }
    const described = await call('PATCH', `/v1/bi/metrics/${m.id}`, { tiles: [] });
    expect(described.body.error.field_errors[0].message).toContain('is not a field of metrics');
    expect((await call('GET', `/v1/bi/dashboards/${d.id}`)).body.dashboard.name).toBe('Strict');
  });

  it('updates every collection it serves', async () => {
    const d = (await call('POST', '/v1/bi/dashboards', { name: 'Before' })).body.dashboard;
    const dash = await call('PATCH', `/v1/bi/dashboards/${d.id}`, { name: 'After', description: 'Now' });
    expect(dash.body.object).toMatchObject({ name: 'After', description: 'Now' });

    const r = await report({ name: 'Editable' });
    const rep = await call('PATCH', `/v1/bi/reports/${r.id}`, {
      visualization: 'table',
      query: {
        ...PIPELINE_QUERY,
        dimensions: ['stage_key'],
        measures: [{ aggregate: 'count', as: 'deals' }],
        sort: [{ column: 'stage_key' }],
      },
    });
    expect(rep.status, rep.text).toBe(200);
    expect(rep.body.object.query.dimensions).toEqual(['stage_key']);
    const badQuery = await call('PATCH', `/v1/bi/reports/${r.id}`, {
      query: { dataset_key: 'crm_pipeline', dimensions: ['nope'] },
    });
    expect(fields(badQuery)).toEqual(['query.dimensions[0]']);
    const refreshed = await call('POST', `/v1/bi/reports/${r.id}/refresh`);
    expect(refreshed.body.report.last_result.rows).toEqual([
      { stage_key: 'new', deals: 3 },
      { stage_key: 'won', deals: 2 },
    ]);

    const ds = await call('POST', '/v1/bi/datasets', {
      key: 'won_deals',
      name: 'Won deals',
      template_key: 'crm_pipeline',
      filters: [{ column: 'stage_kind', operator: 'eq', value: 'won' }],
    });
    expect(ds.status, ds.text).toBe(201);
    const dsUpdated = await call('PATCH', `/v1/bi/datasets/${ds.body.dataset.id}`, {
      name: 'Won deals only',
      column_descriptions: { amount_cents: 'Won value in cents.' },
    });
    expect(dsUpdated.status, dsUpdated.text).toBe(200);
    expect(dsUpdated.body.object.name).toBe('Won deals only');
    const badColumn = await call('PATCH', `/v1/bi/datasets/${ds.body.dataset.id}`, {
      column_descriptions: { nope: 'x' },
    });
    expect(fields(badColumn)).toEqual(['column_descriptions.nope']);

    const q = (await call('POST', '/v1/bi/queries/run', { dataset_key: 'crm_pipeline' })).body.query;
    const named = await h.callTool(a.mcpToken, 'update_bi_object', {
      collection: 'queries',
      id: q.id,
      name: 'Default pipeline',
    });
    expect(named.body.object.name).toBe('Default pipeline');

    const exported = await call('POST', '/v1/bi/exports', {
      name: 'Pipeline CSV',
      format: 'csv',
      query_id: q.id,
    });
    expect(exported.status, exported.text).toBe(202);
    const exportId = exported.body.export.id;
    const renamed = await call('PATCH', `/v1/bi/exports/${exportId}`, { name: 'Pipeline file' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.object.name).toBe('Pipeline file');
    expect(fields(await call('PATCH', `/v1/bi/exports/${exportId}`, { format: 'jsonl' }))).toEqual([
      'format',
    ]);
    const archivedExport = await call('DELETE', `/v1/bi/exports/${exportId}`);
    expect(archivedExport.body).toMatchObject({ collection: 'exports', archived_at: NOW });
    expect((await call('GET', `/v1/bi/exports/${exportId}`)).status).toBe(404);

    const schedule = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Nightly',
      target: { type: 'report', id: r.id },
      cadence: 'daily',
      hour: 3,
    });
    expect(schedule.status, schedule.text).toBe(201);
    expect(schedule.body.scheduled_artifact.next_run_at).toBe('2026-11-22T03:00:00.000Z');
    const moved = await call('PATCH', `/v1/bi/scheduled-artifacts/${schedule.body.scheduled_artifact.id}`, {
      hour: 14,
    });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.body.object.next_run_at).toBe('2026-11-21T14:00:00.000Z');
    const scheduledReport = (await call('GET', `/v1/bi/reports/${r.id}`)).body.report;
    expect(scheduledReport).toMatchObject({ scheduled: true, next_refresh_at: '2026-11-21T14:00:00.000Z' });
  });

  it('archives idempotently, hides the object and keeps other workspaces out', async () => {
    const m = await metric('to_archive');
    const first = await call('DELETE', `/v1/bi/metrics/${m.id}`);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ collection: 'metrics', id: m.id, archived_at: NOW });
    h.clock.advance(60_000);
    const again = await h.callTool(a.mcpToken, 'archive_bi_object', { collection: 'metrics', id: m.id });
    expect(again.body.archived_at).toBe(NOW);
    h.clock.current = new Date(NOW);
    expect((await call('GET', `/v1/bi/metrics/${m.id}`)).status).toBe(404);
    expect((await call('PATCH', `/v1/bi/metrics/${m.id}`, { name: 'x' })).status).toBe(404);
    const used = await call('POST', '/v1/bi/queries/run', {
      dataset_key: 'crm_pipeline',
      measures: [{ metric: 'to_archive' }],
    });
    expect(fields(used)).toEqual(['measures[0].metric']);

    const d = (await call('POST', '/v1/bi/dashboards', { name: 'Gone' })).body.dashboard;
    expect((await call('DELETE', `/v1/bi/dashboards/${d.id}`, undefined, b.apiKey)).status).toBe(404);
    expect((await call('DELETE', `/v1/bi/dashboards/${d.id}`)).status).toBe(200);
    expect((await call('GET', `/v1/bi/dashboards/${d.id}`)).status).toBe(404);
    const names = (await call('GET', '/v1/bi/dashboards')).body.dashboards.map((x: any) => x.id);
    expect(names).not.toContain(d.id);

    const q = (await call('POST', '/v1/bi/queries/run', { dataset_key: 'crm_pipeline' })).body.query;
    expect((await call('DELETE', `/v1/bi/queries/${q.id}`)).status).toBe(200);
    expect((await call('GET', `/v1/bi/queries/${q.id}`)).status).toBe(404);
  });
});

describe(`scheduled reports (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('refreshes a report through the scheduler as a run with trigger schedule', async () => {
    const r = await report({ name: 'Hourly pipeline' });
    const created = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Hourly report',
      target: { type: 'report', id: r.id },
      cadence: 'hourly',
      minute: 0,
    });
    expect(created.status, created.text).toBe(201);
    const scheduleId = created.body.scheduled_artifact.id;
    h.clock.current = new Date('2026-11-21T13:00:30.000Z');
    const refreshed = await vi.waitFor(
      async () => {
        await h.worker!.tick();
        const res = await call('GET', `/v1/bi/reports/${r.id}`);
        const state = res.body.report;
        if (state.last_refresh_status !== 'completed')
          throw new Error(JSON.stringify(state.last_refresh_status));
        return state;
      },
      { timeout: 30_000, interval: 50 },
    );
    expect(refreshed).toMatchObject({
      scheduled: true,
      schedule_ids: [scheduleId],
      ever_refreshed: true,
      next_refresh_at: '2026-11-21T14:00:00.000Z',
    });
    expect(refreshed.last_result.rows).toEqual(PIPELINE_ROWS);
    const run = (await call('GET', `/v1/bi/runs/${refreshed.last_refresh_run_id}`)).body.run;
    expect(run).toMatchObject({ status: 'completed', trigger: 'schedule', row_count: 4 });
    expect(run.related).toContainEqual({ type: 'report', id: r.id });
    h.clock.current = new Date(NOW);
  });
});
