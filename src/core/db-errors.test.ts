import { describe, expect, it } from 'vitest';
import {
  CONFLICT_ATTEMPTS,
  isTransientConflict,
  isUniqueViolation,
  retryConflicts,
  uniquely,
} from './db-errors.ts';

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

describe('retryConflicts', () => {
  const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

  it('recognises deadlocks, serialization failures, lock timeouts and SQLite busy, nothing else', () => {
    for (const code of ['40P01', '40001', '55P03', 'SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT']) {
      expect(isTransientConflict({ code })).toBe(true);
    }
    for (const code of ['23505', 'SQLITE_CONSTRAINT_UNIQUE', 57014, undefined]) {
      expect(isTransientConflict({ code })).toBe(false);
    }
    expect(isTransientConflict(null)).toBe(false);
  });

  it('runs the attempt again after a conflict and returns what the next one returns', async () => {
    let calls = 0;
    const result = await retryConflicts(async () => {
      calls += 1;
      if (calls === 1) throw deadlock();
      return 'stored';
    });
    expect(result).toBe('stored');
    expect(calls).toBe(2);
  });

  it('answers write_conflict with a retry hint once every attempt collided', async () => {
    let calls = 0;
    const failing = retryConflicts(async () => {
      calls += 1;
      throw deadlock();
    });
    await expect(failing).rejects.toMatchObject({
      code: 'write_conflict',
      status: 503,
      extras: { retry_after_seconds: 1 },
    });
    expect(calls).toBe(CONFLICT_ATTEMPTS);
  });

  it('answers write_conflict at once when SQLite stayed busy past its timeout', async () => {
    let calls = 0;
    const busy = retryConflicts(async () => {
      calls += 1;
      throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    });
    await expect(busy).rejects.toMatchObject({ code: 'write_conflict' });
    expect(calls).toBe(1);
  });

  it('passes any other error on at once', async () => {
    let calls = 0;
    const other = new Error('disk full');
    await expect(
      retryConflicts(async () => {
        calls += 1;
        throw other;
      }),
    ).rejects.toBe(other);
    expect(calls).toBe(1);
  });
});
