import { describe, expect, it } from 'vitest';
import { floatingDate, formatInZone, fromFloating, offsetAt, toFloating, wallClock } from './zoned-time.ts';

const at = (iso: string) => Date.parse(iso);

describe('zoned time', () => {
  it('keeps local-mean-time offsets to the second', () => {
    // New York kept its local mean time (-4:56:02) until 1883.
    expect(formatInZone('America/New_York', at('1850-06-01T12:00:00Z'))).toBe('1850-06-01T07:03:58-04:56:02');
    expect(offsetAt('America/New_York', at('1850-06-01T12:00:00Z'))).toBe(-(4 * 3600 + 56 * 60 + 2) * 1000);
    // Monrovia Mean Time (-0:44:30) lasted until 1972, inside the accepted input range.
    expect(formatInZone('Africa/Monrovia', at('1960-01-01T12:00:00Z'))).toBe('1960-01-01T11:15:30-00:44:30');
    expect(formatInZone('America/New_York', at('2026-03-09T13:00:00Z'))).toBe('2026-03-09T09:00:00-04:00');
    expect(formatInZone('UTC', at('2026-03-09T13:00:00Z'))).toBe('2026-03-09T13:00:00+00:00');
  });

  it('is right in the years 0001 to 0099, which Date.UTC reads as 1900 to 1999', () => {
    expect(wallClock(1, 0, 1)).toBe(at('0001-01-01T00:00:00Z'));
    expect(wallClock(99, 11, 31, 23, 59, 59)).toBe(at('0099-12-31T23:59:59Z'));
    expect(toFloating('UTC', at('0001-01-01T00:00:00Z'))).toBe(at('0001-01-01T00:00:00Z'));
    expect(formatInZone('UTC', at('0050-07-04T10:20:30Z'))).toBe('0050-07-04T10:20:30+00:00');
    // Berlin's local mean time is +0:53:28.
    expect(formatInZone('Europe/Berlin', at('0001-01-01T00:00:00Z'))).toBe('0001-01-01T00:53:28+00:53:28');
    // An instant whose local day is still in 1 BC (year 0).
    expect(formatInZone('America/New_York', at('0001-01-01T00:00:00Z'))).toBe('0000-12-31T19:03:58-04:56:02');
    expect(floatingDate(toFloating('America/New_York', at('0001-01-01T00:00:00Z')))).toBe('0000-12-31');
  });

  it('maps wall-clock times back to instants in every year', () => {
    for (const zone of ['America/New_York', 'Europe/Berlin', 'Asia/Kolkata', 'Pacific/Kiritimati', 'UTC']) {
      for (const iso of [
        '0001-03-01T09:30:00Z',
        '0099-12-31T23:00:00Z',
        '1850-06-01T12:00:00Z',
        '2026-07-01T08:00:00Z',
      ]) {
        const instant = at(iso);
        expect(fromFloating(zone, toFloating(zone, instant))).toBe(instant);
      }
    }
  });

  it('writes years past 9999 in the expanded form instead of cutting them', () => {
    expect(formatInZone('Pacific/Kiritimati', at('9999-12-31T23:00:00Z'))).toBe(
      '+010000-01-01T13:00:00+14:00',
    );
  });
});
