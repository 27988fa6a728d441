// The insight draft is built from the numbers alone, and the version checksum ignores row and key order.
import { describe, expect, it } from 'vitest';
import type { BiResult, CompiledBiQuery } from '../../product-analytics/bi/run-query.ts';
import { rowsChecksum } from './dataset-version-store.ts';
import { draftFromResult } from './job-runners-bi.ts';

const source = { type: 'bi_query', id: 'biq_1' };

describe('draftFromResult', () => {
  const compiled = {
    definition: {
      dataset_key: 'crm_pipeline',
      measures: [
        { aggregate: 'count', as: 'deals' },
        { column: 'amount_cents', aggregate: 'sum', as: 'value_cents' },
        { column: 'amount_cents', aggregate: 'avg', as: 'avg_cents' },
      ],
      limit: 25,
    },
    columns: [] as BiResult['columns'],
  } as unknown as CompiledBiQuery;
  const result: BiResult = {
    columns: [
      { name: 'stage_key', type: 'string', role: 'dimension' },
      { name: 'currency', type: 'string', role: 'dimension' },
      { name: 'deals', type: 'integer', role: 'measure' },
      { name: 'value_cents', type: 'money', role: 'measure', currency_column: 'currency' },
      { name: 'avg_cents', type: 'number', role: 'measure' },
    ],
    rows: [
      { stage_key: 'new', currency: 'USD', deals: 2, value_cents: 350, avg_cents: 175 },
      { stage_key: 'won', currency: 'USD', deals: 1, value_cents: 1000, avg_cents: 1000 },
      { stage_key: 'new', currency: 'EUR', deals: 1, value_cents: 300, avg_cents: 300 },
    ],
    row_count: 3,
    truncated: false,
  };
  compiled.columns = result.columns;

  it('states figures per row, totals per unit for counts and sums only, and names the extremes', () => {
    const { figures, summary } = draftFromResult(compiled, result, source);
    expect(figures).toContainEqual({ label: 'deals: total', value: 4, unit: 'count', source });
    expect(figures).toContainEqual({ label: 'value_cents: total', value: 1350, unit: 'USD cents', source });
    expect(figures).toContainEqual({ label: 'value_cents: total', value: 300, unit: 'EUR cents', source });
    expect(figures.filter((f) => f.label === 'avg_cents: total')).toEqual([]);
    expect(figures).toContainEqual({ label: 'deals: new / USD', value: 2, unit: 'count', source });
    expect(summary).toContain('3 rows of crm_pipeline by stage_key, currency.');
    expect(summary).toContain('deals is highest for new / USD (2) and lowest for new / EUR (1).');
    expect(summary).toContain('value_cents totals 1,350 USD cents.');
    expect(draftFromResult(compiled, result, source)).toEqual({ figures, summary });
  });
});

describe('rowsChecksum', () => {
  it('is the same whatever the order of rows and keys, and differs when a value does', () => {
    const a = rowsChecksum([
      { x: 1, y: 'a' },
      { x: 2, y: 'b' },
    ]);
    expect(
      rowsChecksum([
        { y: 'b', x: 2 },
        { y: 'a', x: 1 },
      ]),
    ).toBe(a);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(
      rowsChecksum([
        { x: 1, y: 'a' },
        { x: 3, y: 'b' },
      ]),
    ).not.toBe(a);
  });
});
