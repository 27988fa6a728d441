import { describe, expect, it } from 'vitest';
import { isUniqueViolation, newFields } from './crm-shared.ts';

describe('custom field maps', () => {
  it('drop null values on create', () => {
    expect(newFields({ a: null, b: 0, c: false, d: '' })).toEqual({ b: 0, c: false, d: '' });
    expect(newFields(undefined)).toEqual({});
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
