import { describe, expect, it } from 'vitest';
import { checkMetric, parseMetric } from './metric-expression.ts';
import { findTemplate } from './templates.ts';

const columns = new Map(findTemplate('crm_pipeline')!.columns.map((c) => [c.name, c]));
const parse = (text: string) => {
  const parsed = parseMetric(text, 'expression');
  if ('error' in parsed) throw new Error(parsed.error.message);
  return parsed.ast;
};

describe('metric grammar', () => {
  it('binds * and / tighter than + and -, left to right', () => {
    expect(parse('count(*) - sum(amount_cents) / 2 * 3')).toEqual({
      kind: 'binary',
      op: '-',
      left: { kind: 'aggregate', fn: 'count', column: null, where: null },
      right: {
        kind: 'binary',
        op: '*',
        left: {
          kind: 'binary',
          op: '/',
          left: { kind: 'aggregate', fn: 'sum', column: 'amount_cents', where: null },
          right: { kind: 'number', value: 2 },
        },
        right: { kind: 'number', value: 3 },
      },
    });
  });

  it('parses filters: and before or, not, in, is null, quoted text', () => {
    expect(
      parse("count(* where stage_key = 'it''s' or not is_open = true and company_id is not null)"),
    ).toEqual({
      kind: 'aggregate',
      fn: 'count',
      column: null,
      where: {
        kind: 'or',
        left: { kind: 'compare', column: 'stage_key', op: '=', value: "it's" },
        right: {
          kind: 'and',
          left: { kind: 'not', operand: { kind: 'compare', column: 'is_open', op: '=', value: true } },
          right: { kind: 'null', column: 'company_id', negated: true },
        },
      },
    });
    expect(parse("sum(amount_cents where currency not in ('USD', 'EUR'))")).toMatchObject({
      where: { kind: 'in', negated: true, values: ['USD', 'EUR'] },
    });
  });

  it('refuses what is not in the grammar, and names unknown columns and functions', () => {
    for (const text of ['sum(amount_cents) ;', 'select 1', 'sum(amount_cents where)', "sum('x')", '1 +']) {
      expect('error' in parseMetric(text, 'expression'), text).toBe(true);
    }
    expect(checkMetric(parse('median(amount_cents)'), columns, 'expression')[0]!.message).toContain('median');
    expect(checkMetric(parse('sum(notes)'), columns, 'expression')[0]!.message).toContain('notes');
    expect(checkMetric(parse('sum(*)'), columns, 'expression')).toHaveLength(1);
    expect(
      checkMetric(parse("avg(amount_cents where created_at > 'soon')"), columns, 'expression'),
    ).toHaveLength(1);
    expect(
      checkMetric(parse("avg(amount_cents where created_at > '2026-01-01T00:00:00Z')"), columns, 'x'),
    ).toEqual([]);
  });
});
