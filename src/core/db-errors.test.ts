import { describe, expect, it } from 'vitest';
import { isUniqueViolation, uniquely } from './db-errors.ts';

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

describe('uniquely', () => {
  it('turns a lost unique race into validation_failed on the field, and passes other errors on', async () => {
    const violation = Object.assign(new Error('duplicate'), { code: '23505' });
    await expect(uniquely(() => Promise.reject(violation), 'key', 'is taken')).rejects.toMatchObject({
      code: 'validation_failed',
      extras: { field_errors: [{ field: 'key', message: 'is taken' }] },
    });
    const other = new Error('disk full');
    await expect(uniquely(() => Promise.reject(other), 'key', 'is taken')).rejects.toBe(other);
    await expect(uniquely(async () => 7, 'key', 'is taken')).resolves.toBe(7);
  });
});
