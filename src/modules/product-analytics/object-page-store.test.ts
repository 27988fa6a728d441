import { describe, expect, it } from 'vitest';
import { windowParts } from './object-page-store.ts';

const parts = (from: string, to: string) =>
  windowParts({
    from,
    to,
    fromDay: from.slice(0, 10),
    toDay: new Date(Date.parse(to) - 1).toISOString().slice(0, 10),
  });

describe('windowParts', () => {
  it('splits a window into whole UTC days and the hours of its partial first and last days', () => {
    expect(parts('2026-11-19T10:00:00.000Z', '2026-11-22T12:00:00.000Z')).toEqual({
      days: { from: '2026-11-20', to: '2026-11-21' },
      hours: [
        { day: '2026-11-19', from: '2026-11-19T10:00:00.000Z', to: '2026-11-20T00:00:00.000Z' },
        { day: '2026-11-22', from: '2026-11-22T00:00:00.000Z', to: '2026-11-22T12:00:00.000Z' },
      ],
    });
  });

  it('reads whole days only when the window starts and ends at midnight', () => {
    expect(parts('2026-11-19T00:00:00.000Z', '2026-11-21T00:00:00.000Z')).toEqual({
      days: { from: '2026-11-19', to: '2026-11-20' },
      hours: [],
    });
  });

  it('reads hours only when no day is whole', () => {
    expect(parts('2026-11-21T03:00:00.000Z', '2026-11-21T05:00:00.000Z')).toEqual({
      hours: [{ day: '2026-11-21', from: '2026-11-21T03:00:00.000Z', to: '2026-11-21T05:00:00.000Z' }],
    });
    expect(parts('2026-11-20T20:00:00.000Z', '2026-11-21T05:00:00.000Z')).toEqual({
      hours: [
        { day: '2026-11-20', from: '2026-11-20T20:00:00.000Z', to: '2026-11-21T00:00:00.000Z' },
        { day: '2026-11-21', from: '2026-11-21T00:00:00.000Z', to: '2026-11-21T05:00:00.000Z' },
      ],
    });
  });
});
