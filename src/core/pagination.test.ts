import { describe, expect, it } from 'vitest';
import { ServiceError } from './errors.ts';
import { containsPattern, decodeCursor, encodeCursor } from './pagination.ts';

describe('cursors', () => {
  it('round-trip with the same operation and filters, whatever their key order', () => {
    const cursor = encodeCursor('list_tasks', { status: 'open', assignee_id: 'a' }, ['tsk_1']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('list_tasks', { assignee_id: 'a', status: 'open' }, cursor, ['string'])).toEqual([
      'tsk_1',
    ]);
  });

  it('are refused for other filters, other operations and garbage', () => {
    const cursor = encodeCursor('list_tasks', { status: 'open' }, ['tsk_1']);
    const forged = (key: unknown) =>
      encodeCursor('list_tasks', { status: 'open' }, key as (string | number)[]);
    for (const attempt of [
      () => decodeCursor('list_tasks', { status: 'completed' }, cursor, ['string']),
      () => decodeCursor('search_contacts', { status: 'open' }, cursor, ['string']),
      () => decodeCursor('list_tasks', {}, 'not base64 json', ['string']),
      () => decodeCursor('list_tasks', {}, Buffer.from('null').toString('base64url'), ['string']),
      () => decodeCursor('list_tasks', { status: 'open' }, cursor, ['integer', 'string']),
      ...[{ a: 1 }, true, 'tsk_1', [{}], [true], ['tsk_1', 'tsk_2'], [2], ['a\u0000b']].map(
        (key) => () => decodeCursor('list_tasks', { status: 'open' }, forged(key), ['string']),
      ),
      ...[
        ['1', 'x'],
        [1.5, 'x'],
        [2 ** 31, 'x'],
      ].map(
        (key) => () => decodeCursor('list_tasks', { status: 'open' }, forged(key), ['integer', 'string']),
      ),
      () =>
        decodeCursor('list_tasks', { status: 'open' }, forged(['2026-13-45', 'x']), ['date-time', 'string']),
    ]) {
      expect(attempt).toThrow(ServiceError);
      try {
        attempt();
      } catch (error) {
        expect((error as ServiceError).extras.field_errors?.[0]?.field).toBe('cursor');
      }
    }
  });
});

describe('containsPattern', () => {
  it('lower-cases and escapes LIKE wildcards', () => {
    expect(containsPattern('50%_Off\\')).toBe('%50\\%\\_off\\\\%');
  });
});
