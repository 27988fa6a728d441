import { describe, expect, it } from 'vitest';
import { isUniqueViolation, mergeFields, newFields, sameFields } from './crm-shared.ts';

describe('custom field maps', () => {
  it('merge key by key, a null value removing its key', () => {
    expect(mergeFields({ a: 1, b: 'x', c: true }, { a: 2, b: null, d: 'new', missing: null })).toEqual({
      a: 2,
      c: true,
      d: 'new',
    });
  });

  it('drop null values on create', () => {
    expect(newFields({ a: null, b: 0, c: false, d: '' })).toEqual({ b: 0, c: false, d: '' });
    expect(newFields(undefined)).toEqual({});
  });

  it('compare regardless of key order, and by type', () => {
    expect(sameFields({ a: 1, b: 'x' }, { b: 'x', a: 1 })).toBe(true);
    expect(sameFields({ a: 1 }, { a: '1' })).toBe(false);
    expect(sameFields({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameFields({}, {})).toBe(true);
  });
});

describe('isUniqueViolation', () => {
  it('recognises PostgreSQL and SQLite unique violations only', () => {
    expect(isUniqueViolation({ code: '23505' })).toBe(true);
    expect(isUniqueViolation({ code: 'SQLITE_CONSTRAINT_UNIQUE' })).toBe(true);
    expect(isUniqueViolation({ code: 'SQLITE_CONSTRAINT_FOREIGNKEY' })).toBe(false);
    expect(isUniqueViolation({ code: '23503' })).toBe(false);
    expect(isUniqueViolation(new Error('x'))).toBe(false);
    expect(isUniqueViolation(null)).toBe(false);
  });
});
