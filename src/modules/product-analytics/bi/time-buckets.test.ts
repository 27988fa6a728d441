import { describe, expect, it } from 'vitest';
import { offsetSegments, resolveRelative } from './time-buckets.ts';

const at = (iso: string) => Date.parse(iso);

describe('relative ranges', () => {
  it('are local calendar periods of the zone', () => {
    // 2026-11-21T03:00Z is still the 20th in New York (UTC-5).
    const now = at('2026-11-21T03:00:00Z');
    expect(resolveRelative('today', 'America/New_York', now)).toEqual({
      from: '2026-11-20T05:00:00.000Z',
      to: '2026-11-21T05:00:00.000Z',
    });
    expect(resolveRelative('last_7_days', 'UTC', now)).toEqual({
      from: '2026-11-15T00:00:00.000Z',
      to: '2026-11-22T00:00:00.000Z',
    });
    expect(resolveRelative('this_quarter', 'UTC', now)).toEqual({
      from: '2026-10-01T00:00:00.000Z',
      to: '2027-01-01T00:00:00.000Z',
    });
    expect(resolveRelative('last_month', 'Europe/Berlin', at('2026-01-15T12:00:00Z'))).toEqual({
      from: '2025-11-30T23:00:00.000Z',
      to: '2025-12-31T23:00:00.000Z',
    });
    // March in New York spans the spring-forward change: -5 at its start, -4 at its end.
    expect(resolveRelative('this_month', 'America/New_York', at('2026-03-20T12:00:00Z'))).toEqual({
      from: '2026-03-01T05:00:00.000Z',
      to: '2026-04-01T04:00:00.000Z',
    });
    expect(resolveRelative('this_year', 'UTC', now).from).toBe('2026-01-01T00:00:00.000Z');
  });
});

describe('offset segments', () => {
  it('split a range at each DST change, to the second', () => {
    expect(offsetSegments('Europe/Berlin', at('2026-03-01T00:00:00Z'), at('2026-11-01T00:00:00Z'))).toEqual([
      { until: '2026-03-29T01:00:00.000Z', offsetSeconds: 3600 },
      { until: '2026-10-25T01:00:00.000Z', offsetSeconds: 7200 },
      { until: null, offsetSeconds: 3600 },
    ]);
    expect(offsetSegments('UTC', at('2026-01-01T00:00:00Z'), at('2027-01-01T00:00:00Z'))).toEqual([
      { until: null, offsetSeconds: 0 },
    ]);
  });
});
