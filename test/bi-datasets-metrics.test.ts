// Custom datasets (preview, create, query by key) and governed metrics (grammar, compiled SQL, draft /
// approved / deprecated in queries), with numbers checked against hand-computed values, on REST and MCP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMetricStatus } from '../src/modules/product-analytics/bi/bi-metric-store.ts';
import { dealRow } from './helpers/bi-seed.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const NOW = '2026-11-21T12:00:00.000Z';

describe('BI datasets and metrics', () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;
  let otherKey: string;

  const post = (ws: TestWorkspace | string, url: string, body: unknown) =>
    h.request('POST', url, { token: typeof ws === 'string' ? ws : ws.apiKey, body });
  const fields = (result: { body: any }) =>
    result.body.error.field_errors.map((e: { field: string }) => e.field);

  beforeAll(async () => {
    h = await Harness.start();
    a = await h.workspace('BI datasets A');
    b = await h.workspace('BI datasets B');
    otherKey = (await h.createCredential(a.id, 'api_key')).token;
    const deal = (stage_key: string, currency: string, amount_cents: number, closed = false) =>
      dealRow(a.id, NOW, stage_key, currency, amount_cents, closed);
    await h.db
      .insertInto('deals')
      .values([
        deal('new', 'USD', 100),
        deal('new', 'USD', 250),
        deal('new', 'EUR', 300),
        deal('won', 'USD', 1000, true),
        deal('won', 'EUR', 500, true),
        deal('lost', 'USD', 70, true),
      ])
      .execute();
  });
  afterAll(() => h.close());

  const wonDeals = {
    template_key: 'crm_pipeline',
    columns: ['deal_id', 'stage_key', 'stage', 'currency', 'amount_cents'],
    filters: [{ column: 'stage_kind', operator: 'eq', value: 'won' }],
    column_descriptions: { amount_cents: 'Won value in cents.' },
  };

  it('previews a dataset before saving it, and saves nothing', async () => {
    const preview = await post(a, '/v1/bi/datasets/preview', { ...wonDeals, limit: 5 });
    expect(preview.status).toBe(200);
    expect(preview.body.preview.columns.map((c: { name: string }) => c.name)).toEqual(wonDeals.columns);
    const rows = preview.body.preview.rows.map(
      (r: Record<string, unknown>) => `${r.currency} ${r.amount_cents}`,
    );
    expect(rows.sort()).toEqual(['EUR 500', 'USD 1000']);
    expect(preview.body.preview).toMatchObject({ row_count: 2, truncated: false });
    const bad = await post(a, '/v1/bi/datasets/preview', {
      template_key: 'crm_pipeline',
      columns: ['deal_id', 'amount_cents'],
    });
    expect(bad.status).toBe(400);
    expect(fields(bad)).toEqual(['columns[1]']);
    const listed = await h.request('GET', '/v1/bi/datasets', { token: a.apiKey });
    expect(listed.body.datasets).toEqual([]);
  });

  it('creates a dataset addressable by its key, with its columns and filters enforced', async () => {
    const created = await post(a, '/v1/bi/datasets', { key: 'won_deals', name: 'Won deals', ...wonDeals });
    expect(created.status).toBe(201);
    const dataset = created.body.dataset;
    expect(dataset.columns.find((c: { name: string }) => c.name === 'amount_cents').description).toBe(
      'Won value in cents.',
    );
    const again = await post(a, '/v1/bi/datasets', { key: 'won_deals', name: 'Again', ...wonDeals });
    expect(again.status).toBe(409);
    const template = await post(a, '/v1/bi/datasets', { key: 'crm_pipeline', name: 'Shadow', ...wonDeals });
    expect(template.status).toBe(400);
    expect(fields(template)).toEqual(['key']);
    const badFilter = await post(a, '/v1/bi/datasets', {
      key: 'broken',
      name: 'Broken',
      template_key: 'crm_pipeline',
      filters: [{ column: 'amount_cents', operator: 'contains', value: 'x' }],
      column_descriptions: { nope: 'x' },
    });
    expect(fields(badFilter).sort()).toEqual(['column_descriptions.nope', 'filters[0].value']);

    const result = await post(a, '/v1/bi/queries/run', { dataset_key: 'won_deals' });
    expect(result.status).toBe(200);
    expect(result.body.result.rows).toEqual([
      { stage_key: 'won', currency: 'EUR', deals: 1, value_cents: 500 },
      { stage_key: 'won', currency: 'USD', deals: 1, value_cents: 1000 },
    ]);
    const hidden = await post(a, '/v1/bi/queries/run', {
      dataset_key: 'won_deals',
      dimensions: ['stage_kind'],
    });
    expect(fields(hidden)).toEqual(['dimensions[0]']);

    const lookup = await h.request('GET', `/v1/bi/datasets/${dataset.id}`, { token: a.apiKey });
    expect(lookup.body.dataset).toEqual(dataset);
    expect((await h.request('GET', `/v1/bi/datasets/${dataset.id}`, { token: b.apiKey })).status).toBe(404);
    const theirs = await post(b, '/v1/bi/queries/run', { dataset_key: 'won_deals' });
    expect(fields(theirs)).toEqual(['dataset_key']);
    const viaMcp = await h.callTool(a.mcpToken, 'list_bi_datasets', { template_key: 'crm_pipeline' });
    expect(viaMcp.body.datasets.map((d: { key: string }) => d.key)).toEqual(['won_deals']);
  });

  it('rejects metric expressions naming unknown columns or functions, or not parsing', async () => {
    const metric = (expression: string) =>
      post(a, '/v1/bi/metrics', { key: 'bad', name: 'Bad', dataset_key: 'crm_pipeline', expression });
    for (const expression of [
      'sum(amount)',
      'median(amount_cents)',
      'sum(amount_cents',
      'sum(stage)',
      'count(* where stage_kind = 3)',
      'amount_cents + 1',
      'sum(amount_cents); drop table deals',
    ]) {
      const result = await metric(expression);
      expect(result.status, expression).toBe(400);
      expect(fields(result)).toContain('expression');
    }
  });

  it('compiles a metric to SQL and uses a draft only for its creator, an approved one for all', async () => {
    const created = await post(a, '/v1/bi/metrics', {
      key: 'won_share',
      name: 'Won share',
      description: 'Percent of deal value in won stages.',
      dataset_key: 'crm_pipeline',
      expression: "sum(amount_cents where stage_kind = 'won') * 100 / sum(amount_cents)",
      format: 'percent',
      synonyms: ['win rate by value'],
      example_questions: ['What share of pipeline value did we win?'],
    });
    expect(created.status).toBe(201);
    const metric = created.body.metric;
    expect(metric.status).toBe('draft');
    expect(metric.sql).toContain('case when');
    expect(metric.sql).toContain('nullif(');
    expect(metric.sql_parameters).toEqual(['won']);

    const share = (token: string) =>
      post(token, '/v1/bi/queries/run', { dataset_key: 'crm_pipeline', measures: [{ metric: 'won_share' }] });
    // USD: 1000 of 100 + 250 + 1000 + 70 = 1420; EUR: 500 of 800. Grouped by currency (money inside).
    const mine = await share(a.apiKey);
    expect(mine.status).toBe(200);
    expect(mine.body.result.rows).toEqual([
      { currency: 'USD', won_share: 70.422535 },
      { currency: 'EUR', won_share: 62.5 },
    ]);
    expect(mine.body.run.related).toContainEqual({ type: 'bi_metric', id: metric.id });

    const refused = await share(otherKey);
    expect(refused.status).toBe(400);
    expect(fields(refused)).toEqual(['measures[0].metric']);
    expect(refused.body.error.field_errors[0].message).toContain('draft');

    await setMetricStatus(h.db, a.id, metric.id, 'approved', NOW);
    const approved = await share(otherKey);
    expect(approved.status).toBe(200);
    expect(approved.body.result.rows).toEqual(mine.body.result.rows);

    await setMetricStatus(h.db, a.id, metric.id, 'deprecated', NOW);
    expect((await share(a.apiKey)).status).toBe(400);

    const isolated = await post(b, '/v1/bi/queries/run', {
      dataset_key: 'crm_pipeline',
      measures: [{ metric: 'won_share' }],
    });
    expect(fields(isolated)).toEqual(['measures[0].metric']);
    expect((await h.request('GET', `/v1/bi/metrics/${metric.id}`, { token: b.apiKey })).status).toBe(404);
    expect(
      (await h.request('GET', `/v1/bi/metrics/${metric.id}`, { token: a.apiKey })).body.metric.status,
    ).toBe('deprecated');
  });

  it('counts with filters of in, not and and, on MCP', async () => {
    const created = await h.callTool(a.mcpToken, 'create_bi_metric', {
      key: 'early_open',
      name: 'Early open deals',
      dataset_key: 'crm_pipeline',
      expression: "count(* where stage_key in ('new', 'demo') and not is_open = false)",
    });
    expect(created.result.isError).toBeFalsy();
    const run = await h.callTool(a.mcpToken, 'run_bi_query', {
      dataset_key: 'crm_pipeline',
      measures: [{ metric: 'early_open', as: 'open_early' }, { aggregate: 'count' }],
    });
    expect(run.body.result.rows).toEqual([{ open_early: 3, count: 6 }]);
    const record = await h.callTool(a.mcpToken, 'get_record', {
      type: 'bi_metric',
      id: created.body.metric.id,
    });
    expect(record.body.record).toMatchObject({ key: 'early_open', status: 'draft' });
    const listed = await h.callTool(a.mcpToken, 'list_bi_metrics', { status: 'draft' });
    expect(listed.body.metrics.map((m: { key: string }) => m.key)).toEqual(['early_open']);
  });
});
