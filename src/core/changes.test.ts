import { describe, expect, it } from 'vitest';
import {
  diffFields,
  inputFields,
  mergedJson,
  mergeFields,
  recordedFields,
  requireSomeField,
  withoutNulls,
} from './changes.ts';
import { ServiceError } from './errors.ts';

describe('changed fields', () => {
  it('never name the idempotency key or the dry-run flag', () => {
    expect(recordedFields(['name', 'idempotency_key', 'dry_run', 'email'])).toEqual(['name', 'email']);
    expect(inputFields({ name: 'A', idempotency_key: 'k', dry_run: false, email: undefined })).toEqual([
      'name',
    ]);
  });

  it('of an update are the sent fields whose value differs from the row', () => {
    const row = { name: 'A', status: 'open', owner_id: null as string | null };
    const { changes, changed } = diffFields(
      row,
      { name: 'A', status: 'done', owner_id: undefined, dry_run: true },
      ['name', 'status', 'owner_id'],
    );
    expect(changes).toEqual({ status: 'done' });
    expect(changed).toEqual(['status']);
    expect(diffFields(row, { owner_id: 'usr_1' }, ['owner_id']).changed).toEqual(['owner_id']);
  });
});

describe('requireSomeField', () => {
  it('refuses a body without any field it can change, naming them', () => {
    const refusal = (() => {
      try {
        requireSomeField({ id: 'x', dry_run: true }, ['name', 'status']);
      } catch (thrown) {
        return thrown as ServiceError;
      }
    })();
    expect(refusal).toBeInstanceOf(ServiceError);
    expect(refusal?.code).toBe('validation_failed');
    expect(refusal?.extras.field_errors).toEqual([
      { field: '(body)', message: 'send at least one of name, status' },
    ]);
    expect(() => requireSomeField({ status: null }, ['name', 'status'])).not.toThrow();
  });
});

describe('merged maps', () => {
  it('merge key by key, a null value removing its key', () => {
    expect(mergeFields({ a: 1, b: 'x', c: true }, { a: 2, b: null, d: 'new', missing: null })).toEqual({
      a: 2,
      c: true,
      d: 'new',
    });
  });

  it('of a new record drop null values', () => {
    expect(withoutNulls({ a: null, b: 0, c: false, d: '' })).toEqual({ b: 0, c: false, d: '' });
    expect(withoutNulls(undefined)).toEqual({});
  });

  it('give the stored text back when a patch changes nothing', () => {
    const stored = JSON.stringify({ tier: 'gold', seats: 3 });
    expect(mergedJson(stored, { seats: 3, gone: null })).toBe(stored);
    expect(mergedJson(stored, { seats: 4 })).toBe(JSON.stringify({ tier: 'gold', seats: 4 }));
    expect(mergedJson(stored, undefined)).toBeUndefined();
  });
});
