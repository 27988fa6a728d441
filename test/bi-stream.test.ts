// streamQueryRows (what exports use): every row of a grouped query, in chunks over the group keys, with
// null keys and chunk boundaries inside equal first keys, equal to the same query read at once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/core/ids.ts';
import {
  executeQuery,
  prepareQuery,
  streamQueryRows,
} from '../src/modules/product-analytics/bi/run-query.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const NOW = '2026-11-21T12:00:00.000Z';

describe('BI row streams', () => {
  let h: Harness;
  let a: TestWorkspace;

  beforeAll(async () => {
    h = await Harness.start();
    a = await h.workspace('BI stream');
    const companies = ['cmp_a', 'cmp_b'];
    for (const id of companies) {
      await h.db
        .insertInto('companies')
        .values({
          workspace_id: a.id,
          id,
          name: id,
          domain: null,
          website: null,
          notes: null,
          created_at: NOW,
          updated_at: NOW,
        })
        .execute();
    }
    const rows = [];
    for (let i = 0; i < 23; i++) {
      rows.push({
        workspace_id: a.id,
        id: newId('deal'),
        name: `deal ${i}`,
        stage_key: ['new', 'won', 'lost'][i % 3]!,
        amount_cents: 100 * (i + 1),
        currency: i % 2 ? 'USD' : 'EUR',
        // Every fourth deal has no company: a null group key.
        company_id: i % 4 === 0 ? null : companies[i % 2]!,
        contact_id: null,
        custom_fields: '{}',
        notes: null,
        closed_at: null,
        created_at: NOW,
        updated_at: NOW,
      });
    }
    await h.db.insertInto('deals').values(rows).execute();
  });
  afterAll(() => h.close());

  const options = () => ({
    dialect: usingPostgres ? ('postgres' as const) : ('sqlite' as const),
    now: NOW,
    credentialId: null,
  });

  it('yields the rows of the query once each, chunk by chunk, nulls included', async () => {
    const compiled = await prepareQuery(
      h.db,
      a.id,
      {
        dataset_key: 'crm_pipeline',
        dimensions: ['company_id', 'deal_id'],
        measures: [{ column: 'amount_cents', aggregate: 'sum' }],
      },
      options(),
    );
    const whole = await executeQuery(compiled, 1000);
    expect(whole.row_count).toBe(23);
    const chunks: number[] = [];
    const streamed = [];
    for await (const chunk of streamQueryRows(compiled, { chunkSize: 4 })) {
      chunks.push(chunk.length);
      streamed.push(...chunk);
    }
    expect(chunks).toEqual([4, 4, 4, 4, 4, 3]);
    const key = (r: Record<string, unknown>) => `${r.company_id}|${r.deal_id}|${r.currency}`;
    expect(new Set(streamed.map(key)).size).toBe(23);
    expect(streamed.map(key).sort()).toEqual(whole.rows.map(key).sort());
    // Nulls first, then the companies in order.
    expect(streamed[0]!.company_id).toBeNull();
    expect(streamed.at(-1)!.company_id).toBe('cmp_b');
    const total = streamed.reduce((sum, r) => sum + (r.sum_amount_cents as number), 0);
    expect(total).toBe((100 * 23 * 24) / 2);
  });

  it('stops at maxRows, and a query without groups is one chunk', async () => {
    const compiled = await prepareQuery(
      h.db,
      a.id,
      { dataset_key: 'crm_pipeline', dimensions: ['deal_id'], measures: [{ aggregate: 'count' }] },
      options(),
    );
    let rows = 0;
    for await (const chunk of streamQueryRows(compiled, { chunkSize: 5, maxRows: 12 })) rows += chunk.length;
    expect(rows).toBe(12);
    const total = await prepareQuery(
      h.db,
      a.id,
      { dataset_key: 'crm_pipeline', measures: [{ aggregate: 'count' }] },
      options(),
    );
    const chunks = [];
    for await (const chunk of streamQueryRows(total)) chunks.push(chunk);
    expect(chunks).toEqual([[{ count: 23 }]]);
  });
});
