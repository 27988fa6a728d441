import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import {
  compileSchema,
  containsNul,
  fieldPath,
  nestedTooDeep,
  nulFieldErrors,
  Strict,
  toFieldErrors,
} from './schema.ts';

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

describe('date and date-time inputs', () => {
  const schema = Strict({
    at: Type.Optional(Type.String({ format: 'date-time' })),
    day: Type.Optional(Type.String({ format: 'date' })),
  });

  it('accept instants from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z, in bodies and query strings', () => {
    const { strict, coercing } = compileSchema(schema);
    for (const validate of [strict, coercing]) {
      for (const at of [
        '1900-01-01T00:00:00Z',
        '1899-12-31T23:00:00-01:00',
        '9999-12-31T23:59:59.999Z',
        '2026-01-01T10:00:00+0100',
      ]) {
        expect(validate({ at }), at).toBe(true);
      }
      for (const day of ['1900-01-01', '9999-12-31']) expect(validate({ day }), day).toBe(true);
      for (const at of [
        '0001-01-01T00:00:00Z',
        '1899-12-31T23:59:59Z',
        '9999-12-31T23:59:59-00:01',
        '2026-06-30T23:59:60Z',
        '2026-01-01T10:00:00+01',
      ]) {
        expect(validate({ at }), at).toBe(false);
        expect(toFieldErrors(validate.errors)).toEqual([
          {
            field: 'at',
            message: 'must be a valid date-time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
          },
        ]);
      }
      expect(validate({ day: '1899-12-31' })).toBe(false);
      expect(toFieldErrors(validate.errors)).toEqual([
        { field: 'day', message: 'must be a valid date from 1900-01-01 to 9999-12-31' },
      ]);
    }
  });
});

describe('containsNul and nulFieldErrors', () => {
  it('find U+0000 in nested values and property names, and nothing elsewhere', () => {
    const clean = { a: 'x', b: [1, 'y', { c: null, d: true }], e: { f: { g: 'z' } } };
    expect(containsNul(clean)).toBe(false);
    expect(nulFieldErrors(clean)).toEqual([]);
    expect(containsNul({ b: [1, { c: 'x\u0000' }] })).toBe(true);
    expect(nulFieldErrors({ b: [1, { c: 'x\u0000' }] })).toEqual([
      { field: 'b[1].c', message: 'must not contain the NUL character (U+0000)' },
    ]);
    expect(nulFieldErrors({ e: { 'k\u0000': 1 } })).toEqual([
      { field: 'e', message: 'must not have a property name containing the NUL character (U+0000)' },
    ]);
    expect(containsNul('\u0000')).toBe(true);
    expect(containsNul(42)).toBe(false);
  });
});

describe('walks that do not recurse', () => {
  const deep = (levels: number, leaf: unknown) =>
    JSON.parse(`${'[{"k":'.repeat(levels)}${JSON.stringify(leaf)}${'}]'.repeat(levels)}`);

  it('containsNul reads a value nested 100,000 levels', () => {
    expect(containsNul(deep(100_000, 'x'))).toBe(false);
    expect(containsNul(deep(100_000, 'x\u0000'))).toBe(true);
  });

  it('nestedTooDeep names the first three steps of a path past the limit, and nothing within it', () => {
    expect(nestedTooDeep({ a: { b: {} } }, 3)).toBeUndefined();
    expect(nestedTooDeep({ a: { b: { c: {} } } }, 3)).toBe('a.b.c');
    expect(nestedTooDeep(deep(100_000, 1), 64)).toBe('[0].k[0]');
    expect(nestedTooDeep({ x: 1, y: [1, [2, [3, []]]] }, 3)).toBe('y[1][1]');
    expect(nestedTooDeep('text', 0)).toBeUndefined();
  });
});
