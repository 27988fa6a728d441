// Money in Custom BI is never mixed across currencies: every aggregate of a money column (avg, min, max and
// counts too) and every metric reading one is grouped by its currency. A sum or count over no rows is 0; a
// ratio whose denominator is 0 stays null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dealRow } from './helpers/bi-seed.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const NOW = '2026-11-21T12:00:00.000Z';

describe('BI money and empty aggregates', () => {
  let h: Harness;
  let ws: TestWorkspace;
  const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
  const run = async (body: Record<string, unknown>) => {
    const result = await post('/v1/bi/queries/run', { dataset_key: 'crm_pipeline', ...body });
    expect(result.status, result.text).toBe(200);
    return result.body.result as { columns: any[]; rows: Record<string, unknown>[] };
  };
  const metric = async (key: string, expression: string, format = 'number') => {
    const created = await post('/v1/bi/metrics', {
      key,
      name: key,
      dataset_key: 'crm_pipeline',
      expression,
      format,
    });
    expect(created.status, created.text).toBe(201);
  };

  beforeAll(async () => {
    h = await Harness.start();
    ws = await h.workspace('BI money');
    const deal = (currency: string, amount: number) => dealRow(ws.id, NOW, 'new', currency, amount);
    await h.db
      .insertInto('deals')
      .values([deal('USD', 30_000), deal('EUR', 40_000), deal('EUR', 50_000)])
      .execute();
  });
  afterAll(() => h.close());

  it('averages money per currency: USD 30,000 and EUR 45,000, never 40,000 across them', async () => {
    const result = await run({
      dimensions: ['stage_key'],
      measures: [
        { column: 'amount_cents', aggregate: 'avg', as: 'avg_cents' },
        { column: 'amount_cents', aggregate: 'min' },
        { column: 'amount_cents', aggregate: 'count', as: 'priced' },
      ],
      sort: [{ column: 'currency' }],
    });
    expect(result.rows).toEqual([
      { stage_key: 'new', currency: 'EUR', avg_cents: 45_000, min_amount_cents: 40_000, priced: 2 },
      { stage_key: 'new', currency: 'USD', avg_cents: 30_000, min_amount_cents: 30_000, priced: 1 },
    ]);
    const avg = result.columns.find((c) => c.name === 'avg_cents');
    expect(avg).toMatchObject({ type: 'number', currency_column: 'currency' });
    expect(result.columns.find((c) => c.name === 'priced').currency_column).toBeUndefined();
  });

  it('groups a metric reading money by its currency, in its aggregates and in its filters', async () => {
    await metric('avg_deal', 'avg(amount_cents)', 'money');
    await metric('big_deals', 'count(* where amount_cents >= 40000)');
    const averaged = await run({ measures: [{ metric: 'avg_deal' }], sort: [{ column: 'currency' }] });
    expect(averaged.rows).toEqual([
      { currency: 'EUR', avg_deal: 45_000 },
      { currency: 'USD', avg_deal: 30_000 },
    ]);
    expect(averaged.columns.find((c) => c.name === 'avg_deal').currency_column).toBe('currency');
    // A count is no amount, but 40,000 cents are not the same sum in two currencies.
    const counted = await run({ measures: [{ metric: 'big_deals' }], sort: [{ column: 'currency' }] });
    expect(counted.rows).toEqual([
      { currency: 'EUR', big_deals: 2 },
      { currency: 'USD', big_deals: 0 },
    ]);
  });

  it('answers 0 for a sum or count over no rows, and null for a ratio over nothing', async () => {
    await metric('open_count', 'sum(is_open)');
    await metric('open_ratio', 'sum(is_open) / count(*)');
    const none = [{ column: 'stage_key', operator: 'eq', value: 'no_such_stage' }];
    const result = await run({
      measures: [
        { column: 'is_open', aggregate: 'sum' },
        { aggregate: 'count' },
        { column: 'deal_id', aggregate: 'count_distinct' },
        { metric: 'open_count' },
        { metric: 'open_ratio' },
      ],
      filters: none,
    });
    expect(result.rows).toEqual([
      { sum_is_open: 0, count: 0, count_distinct_deal_id: 0, open_count: 0, open_ratio: null },
    ]);
    // Over rows, the same metrics count: three open deals of three.
    const all = await run({ measures: [{ metric: 'open_count' }, { metric: 'open_ratio' }] });
    expect(all.rows).toEqual([{ open_count: 3, open_ratio: 1 }]);
  });
});
