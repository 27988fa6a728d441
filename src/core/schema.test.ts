import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { compileSchema, fieldPath, Strict, toFieldErrors } from './schema.ts';

describe('fieldPath', () => {
  it('turns Ajv instance paths into input paths', () => {
    expect(fieldPath('/line_items/0/unit_amount_cents')).toBe('line_items[0].unit_amount_cents');
    expect(fieldPath('', 'name')).toBe('name');
    expect(fieldPath('/fields', 'price')).toBe('fields.price');
  });
});

describe('strict validation', () => {
  const schema = Strict({
    name: Type.String(),
    lines: Type.Array(Strict({ amount: Type.Integer({ minimum: 0 }) })),
    count: Type.Optional(Type.Integer()),
  });

  it('rejects unknown properties at every depth instead of dropping them', () => {
    const { strict } = compileSchema(schema);
    const input = { name: 'x', lines: [{ amount: 1, extra: true }], other: 1 };
    expect(strict(input)).toBe(false);
    expect(toFieldErrors(strict.errors)).toEqual([
      { field: 'other', message: 'is not a recognized field' },
      { field: 'lines[0].extra', message: 'is not a recognized field' },
    ]);
    expect(input.lines[0]).toHaveProperty('extra');
  });

  it('coerces only with the query-string validator', () => {
    const { strict, coercing } = compileSchema(schema);
    expect(strict({ name: 'x', lines: [], count: '3' })).toBe(false);
    const query: Record<string, unknown> = { name: 'x', lines: [], count: '3' };
    expect(coercing(query)).toBe(true);
    expect(query.count).toBe(3);
  });
});
