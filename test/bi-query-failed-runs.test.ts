// A run_bi_query that fails as it runs (past the heavy-read time limit) still answers with its error, and a
// failed BI run with the error and duration is committed on its own; a definition refused before it runs
// (a bad column) records nothing. The time limit is 1 ms, far below the grouping of 30,000 deals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dealRow } from './helpers/bi-seed.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const NOW = '2026-11-21T12:00:00.000Z';
const DEALS = 30_000;

describe('a BI query that fails as it runs', () => {
  let h: Harness;
  let a: TestWorkspace;

  const runs = async () => (await h.request('GET', '/v1/bi/runs?limit=100', { token: a.apiKey })).body.runs;

  beforeAll(async () => {
    h = await Harness.start({ env: { WOS_HEAVY_READ_TIMEOUT_MS: '1' } });
    a = await h.workspace('BI failures');
    for (let i = 0; i < DEALS; i += 1000) {
      const rows = Array.from({ length: 1000 }, (_, j) => dealRow(a.id, NOW, 'new', 'USD', i + j));
      await h.db.insertInto('deals').values(rows).execute();
    }
  });
  afterAll(() => h.close());

  it('answers query_timeout and records a failed run with the error and its duration', async () => {
    const timedOut = await h.request('POST', '/v1/bi/queries/run', {
      token: a.apiKey,
      body: {
        dataset_key: 'crm_pipeline',
        dimensions: ['deal_id', 'deal_name'],
        measures: [{ column: 'amount_cents', aggregate: 'sum' }],
        limit: 1000,
      },
    });
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error.code).toBe('query_timeout');

    const listed = await runs();
    expect(listed).toHaveLength(1);
    const [failed] = listed;
    expect(failed).toMatchObject({
      run_type: 'bi_query',
      operation: 'run_bi_query',
      status: 'failed',
      trigger: 'manual',
      attempts: 1,
      input: { dataset_key: 'crm_pipeline' },
      started_at: NOW,
      row_count: null,
      related: [],
      error: { code: 'query_timeout', message: timedOut.body.error.message },
      request_id: timedOut.headers['x-request-id'],
    });
    expect(failed.duration_ms).toBeGreaterThanOrEqual(0);
    expect(Date.parse(failed.finished_at) - Date.parse(NOW)).toBe(failed.duration_ms);
    const fetched = await h.request('GET', `/v1/bi/runs/${failed.id}`, { token: a.apiKey });
    expect(fetched.body.run).toEqual(failed);
    // The query is not saved: only a run that completed saves one.
    expect((await h.request('GET', '/v1/bi/queries', { token: a.apiKey })).body.queries).toEqual([]);
  });

  it('records nothing for a definition refused before it runs', async () => {
    const before = (await runs()).length;
    const refused = await h.request('POST', '/v1/bi/queries/run', {
      token: a.apiKey,
      body: { dataset_key: 'crm_pipeline', dimensions: ['secret_column'] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.field_errors[0].field).toBe('dimensions[0]');
    expect(await runs()).toHaveLength(before);
  });
});
