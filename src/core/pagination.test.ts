import { describe, expect, it } from 'vitest';
import { ServiceError } from './errors.ts';
import { containsPattern, decodeCursor, encodeCursor } from './pagination.ts';

describe('cursors', () => {
  it('round-trip with the same operation and filters, whatever their key order', () => {
    const cursor = encodeCursor('list_tasks', { status: 'open', assignee_id: 'a' }, 'tsk_1');
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor('list_tasks', { assignee_id: 'a', status: 'open' }, cursor)).toBe('tsk_1');
  });

  it('are refused for other filters, other operations and garbage', () => {
    const cursor = encodeCursor('list_tasks', { status: 'open' }, 'tsk_1');
    for (const attempt of [
      () => decodeCursor('list_tasks', { status: 'completed' }, cursor),
      () => decodeCursor('search_contacts', { status: 'open' }, cursor),
      () => decodeCursor('list_tasks', {}, 'not base64 json'),
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
