import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../core/errors.ts';
import { nextOccurrence, type RuleInput, ruleFrom } from './schedule-rules.ts';

/** The next `count` occurrences after `start`, as ISO instants. */
function occurrences(input: RuleInput, start: string, count: number): string[] {
  const rule = ruleFrom(input);
  const out: string[] = [];
  let at = Date.parse(start);
  for (let i = 0; i < count; i++) {
    at = nextOccurrence(rule, at);
    out.push(new Date(at).toISOString());
  }
  return out;
}

function fieldErrors(input: RuleInput) {
  try {
    ruleFrom(input);
  } catch (error) {
    if (error instanceof ServiceError) return error.extras.field_errors;
    throw error;
  }
  throw new Error('expected validation_failed');
}

const berlin = (hour: number, minute: number) => ({
  cadence: 'daily',
  hour,
  minute,
  timezone: 'Europe/Berlin',
});

describe('daily rules across daylight saving', () => {
  it('runs a local time skipped by spring forward at the next valid minute (Europe/Berlin, 28 March 2027)', () => {
    // 02:00 CET jumps to 03:00 CEST (01:00Z): 02:30 does not exist that night, 03:00 is the next minute.
    expect(occurrences(berlin(2, 30), '2027-03-26T12:00:00Z', 3)).toEqual([
      '2027-03-27T01:30:00.000Z', // 02:30 CET
      '2027-03-28T01:00:00.000Z', // 03:00 CEST
      '2027-03-29T00:30:00.000Z', // 02:30 CEST
    ]);
    // 02:00 itself is skipped too; 03:00 exists.
    expect(occurrences(berlin(2, 0), '2027-03-27T12:00:00Z', 1)).toEqual(['2027-03-28T01:00:00.000Z']);
    expect(occurrences(berlin(3, 0), '2027-03-27T12:00:00Z', 1)).toEqual(['2027-03-28T01:00:00.000Z']);
  });

  it('runs a local time that exists twice on fall back once, at its first occurrence (Europe/Berlin)', () => {
    // 31 October 2027: 03:00 CEST goes back to 02:00 CET; 02:30 is 00:30Z and again 01:30Z.
    const runs = occurrences(berlin(2, 30), '2027-10-30T12:00:00Z', 2);
    expect(runs).toEqual(['2027-10-31T00:30:00.000Z', '2027-11-01T01:30:00.000Z']);
    // Asking again from between the two 02:30s does not find the second one.
    expect(occurrences(berlin(2, 30), '2027-10-31T00:45:00Z', 1)).toEqual(['2027-11-01T01:30:00.000Z']);
  });

  it('handles both changes in America/New_York', () => {
    const ny = (hour: number, minute: number) => ({
      cadence: 'daily',
      hour,
      minute,
      timezone: 'America/New_York',
    });
    // 14 March 2027: 02:00 EST -> 03:00 EDT (07:00Z).
    expect(occurrences(ny(2, 15), '2027-03-12T12:00:00Z', 3)).toEqual([
      '2027-03-13T07:15:00.000Z',
      '2027-03-14T07:00:00.000Z',
      '2027-03-15T06:15:00.000Z',
    ]);
    // 7 November 2027: 02:00 EDT -> 01:00 EST; 01:30 is 05:30Z then 06:30Z: it runs at 05:30Z only.
    expect(occurrences(ny(1, 30), '2027-11-06T12:00:00Z', 2)).toEqual([
      '2027-11-07T05:30:00.000Z',
      '2027-11-08T06:30:00.000Z',
    ]);
  });

  it('finds the next valid minute when the gap is at midnight, or a whole day (Havana 2027, Apia 2011)', () => {
    // America/Havana, 14 March 2027: 00:00 CST jumps to 01:00 CDT.
    const havana = { cadence: 'daily', hour: 0, minute: 15, timezone: 'America/Havana' };
    expect(occurrences(havana, '2027-03-13T12:00:00Z', 2)).toEqual([
      '2027-03-14T05:00:00.000Z', // 01:00 CDT
      '2027-03-15T04:15:00.000Z',
    ]);
    // Pacific/Apia skipped 30 December 2011 entirely: its 10:00 runs at the first minute of the 31st.
    const apia = { cadence: 'daily', hour: 10, minute: 0, timezone: 'Pacific/Apia' };
    expect(occurrences(apia, '2011-12-29T21:00:00Z', 2)).toEqual([
      '2011-12-30T10:00:00.000Z', // 31 December 00:00
      '2011-12-30T20:00:00.000Z', // 31 December 10:00
    ]);
  });

  it('runs exactly once a day for a whole year, at the local time except the skipped one', () => {
    const runs = occurrences(berlin(2, 30), '2026-12-31T12:00:00Z', 365);
    expect(new Set(runs).size).toBe(365);
    expect(runs[0]).toBe('2027-01-01T01:30:00.000Z');
    expect(runs[364]).toBe('2027-12-31T01:30:00.000Z');
    const local = runs.map((at) =>
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(new Date(at)),
    );
    expect(local.filter((time) => time !== '02:30')).toEqual(['03:00']);
  });
});

describe('hourly rules', () => {
  it('runs every real hour across spring forward and fall back (Europe/Berlin)', () => {
    const hourly = { cadence: 'hourly', minute: 30, timezone: 'Europe/Berlin' };
    expect(occurrences(hourly, '2027-03-27T23:45:00Z', 4)).toEqual([
      '2027-03-28T00:30:00.000Z', // 01:30 CET
      '2027-03-28T01:30:00.000Z', // 03:30 CEST: the hour 02:xx does not exist, no hour is skipped
      '2027-03-28T02:30:00.000Z',
      '2027-03-28T03:30:00.000Z',
    ]);
    expect(occurrences(hourly, '2027-10-30T23:45:00Z', 3)).toEqual([
      '2027-10-31T00:30:00.000Z', // 02:30 CEST
      '2027-10-31T01:30:00.000Z', // 02:30 CET: another real hour, so it runs too
      '2027-10-31T02:30:00.000Z',
    ]);
  });

  it('follows the local minute in zones offset by half an hour, and over a 30-minute change', () => {
    expect(
      occurrences({ cadence: 'hourly', minute: 0, timezone: 'Asia/Kolkata' }, '2027-01-01T00:00:00Z', 2),
    ).toEqual(['2027-01-01T00:30:00.000Z', '2027-01-01T01:30:00.000Z']);
    // Australia/Lord_Howe, 4 April 2027: 02:00 (+11) goes back to 01:30 (+10:30) at 15:00Z.
    expect(
      occurrences(
        { cadence: 'hourly', minute: 0, timezone: 'Australia/Lord_Howe' },
        '2027-04-03T12:30:00Z',
        3,
      ),
    ).toEqual(['2027-04-03T13:00:00.000Z', '2027-04-03T14:00:00.000Z', '2027-04-03T15:30:00.000Z']);
  });

  it('is strictly after the given instant, also when it is an occurrence', () => {
    const hourly = { cadence: 'hourly', minute: 0, timezone: 'UTC' };
    expect(occurrences(hourly, '2027-01-01T10:00:00Z', 1)).toEqual(['2027-01-01T11:00:00.000Z']);
    expect(occurrences(hourly, '2027-01-01T09:59:59.999Z', 1)).toEqual(['2027-01-01T10:00:00.000Z']);
  });
});

describe('weekly rules', () => {
  it('keeps the local time across daylight saving (Europe/Berlin, Sundays)', () => {
    const weekly = {
      cadence: 'weekly',
      weekday: 'sunday',
      hour: 9,
      minute: 0,
      timezone: 'Europe/Berlin',
    } as const;
    expect(occurrences(weekly, '2027-03-15T00:00:00Z', 3)).toEqual([
      '2027-03-21T08:00:00.000Z', // CET
      '2027-03-28T07:00:00.000Z', // CEST
      '2027-04-04T07:00:00.000Z',
    ]);
    const early = { ...weekly, hour: 2, minute: 30 };
    expect(occurrences(early, '2027-03-15T00:00:00Z', 2)).toEqual([
      '2027-03-21T01:30:00.000Z',
      '2027-03-28T01:00:00.000Z', // skipped 02:30: next valid minute
    ]);
  });

  it('runs on the named weekday only', () => {
    const weekly = {
      cadence: 'weekly',
      weekday: 'wednesday',
      hour: 12,
      minute: 15,
      timezone: 'UTC',
    } as const;
    const runs = occurrences(weekly, '2027-01-01T00:00:00Z', 3);
    expect(runs).toEqual([
      '2027-01-06T12:15:00.000Z',
      '2027-01-13T12:15:00.000Z',
      '2027-01-20T12:15:00.000Z',
    ]);
    expect(runs.every((at) => new Date(at).getUTCDay() === 3)).toBe(true);
  });
});

describe('monthly rules', () => {
  const monthly = (day: number | 'last') => ({
    cadence: 'monthly',
    day_of_month: day,
    hour: 23,
    minute: 0,
    timezone: 'UTC',
  });

  it('runs on the last day of February in leap (2028) and common (2027) years', () => {
    expect(occurrences(monthly('last'), '2027-01-31T23:00:00Z', 2)).toEqual([
      '2027-02-28T23:00:00.000Z',
      '2027-03-31T23:00:00.000Z',
    ]);
    expect(occurrences(monthly('last'), '2028-01-31T23:00:00Z', 2)).toEqual([
      '2028-02-29T23:00:00.000Z',
      '2028-03-31T23:00:00.000Z',
    ]);
    expect(occurrences(monthly('last'), '2027-03-31T23:00:00Z', 3)).toEqual([
      '2027-04-30T23:00:00.000Z',
      '2027-05-31T23:00:00.000Z',
      '2027-06-30T23:00:00.000Z',
    ]);
  });

  it('runs day 29-31 on the last day of a shorter month (clamped, never skipped)', () => {
    expect(occurrences(monthly(31), '2027-01-01T00:00:00Z', 5)).toEqual([
      '2027-01-31T23:00:00.000Z',
      '2027-02-28T23:00:00.000Z',
      '2027-03-31T23:00:00.000Z',
      '2027-04-30T23:00:00.000Z',
      '2027-05-31T23:00:00.000Z',
    ]);
    expect(occurrences(monthly(30), '2028-02-01T00:00:00Z', 2)).toEqual([
      '2028-02-29T23:00:00.000Z',
      '2028-03-30T23:00:00.000Z',
    ]);
    expect(occurrences(monthly(29), '2027-02-01T00:00:00Z', 2)).toEqual([
      '2027-02-28T23:00:00.000Z',
      '2027-03-29T23:00:00.000Z',
    ]);
    expect(occurrences(monthly(15), '2027-02-01T00:00:00Z', 1)).toEqual(['2027-02-15T23:00:00.000Z']);
  });

  it('puts the month end in the local zone, not UTC (America/New_York at 23:00 is the next UTC day)', () => {
    const ny = { ...monthly('last'), timezone: 'America/New_York' };
    expect(occurrences(ny, '2028-01-31T00:00:00Z', 3)).toEqual([
      '2028-02-01T04:00:00.000Z', // 31 Jan 23:00 EST
      '2028-03-01T04:00:00.000Z', // 29 Feb 23:00 EST
      '2028-04-01T03:00:00.000Z', // 31 Mar 23:00 EDT
    ]);
  });
});

describe('rule validation', () => {
  it("accepts the spec's capitalized cadences and canonical zone names, normalized", () => {
    expect(ruleFrom({ cadence: 'Weekly', weekday: 'monday', hour: 8, timezone: 'europe/berlin' })).toEqual({
      cadence: 'weekly',
      minute: 0,
      hour: 8,
      weekday: 'monday',
      day_of_month: null,
      timezone: 'Europe/Berlin',
    });
    expect(ruleFrom({ cadence: 'Hourly' })).toMatchObject({ cadence: 'hourly', minute: 0, timezone: 'UTC' });
  });

  it('names every missing, misplaced or wrong field', () => {
    expect(fieldErrors({ cadence: 'daily' })).toEqual([
      { field: 'hour', message: 'is required for a daily cadence' },
    ]);
    expect(fieldErrors({ cadence: 'daily', hour: 3, weekday: 'monday' })).toEqual([
      { field: 'weekday', message: 'applies to weekly cadences only; a daily rule has none' },
    ]);
    expect(fieldErrors({ cadence: 'monthly', hour: 24, day_of_month: 32, timezone: 'Mars/Base' })).toEqual([
      { field: 'timezone', message: 'is not an IANA time zone name' },
      { field: 'hour', message: 'must be an integer from 0 to 23' },
      { field: 'day_of_month', message: 'must be an integer from 1 to 31, or last' },
    ]);
    expect(fieldErrors({ cadence: 'yearly' })).toEqual([
      { field: 'cadence', message: 'must be one of: hourly, daily, weekly, monthly' },
    ]);
  });
});
