// The window expansion starts at the rule's period holding the window: it must give exactly the
// occurrences of a walk from the series start, for every kind of rule.
import * as rruleModule from 'rrule';
import { describe, expect, it } from 'vitest';
import { expansionSteps, occurrencesBetween, type Timing } from './recurrence.ts';
import { startsFirstPeriod } from './rule-periods.ts';
import { DAY, dateToFloating, floatingDate, fromFloating, toFloating } from './zoned-time.ts';

const { RRule } = ((rruleModule as any).default ?? rruleModule) as typeof rruleModule;

// A small deterministic generator (mulberry32), so a failure names a reproducible case.
function random(seed: number) {
  let a = seed;
  const next = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: T[]): T => items[int(0, items.length - 1)]!;
  return { next, int, pick };
}

const DAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'];

/**
 * A random rule of every shape the service accepts, kept to combinations that match at least every few
 * years (a rule that never matches would make the reference walk to the year 9999).
 */
function randomRule(r: ReturnType<typeof random>): string {
  const freq = r.pick(['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']);
  const parts = [`FREQ=${freq}`];
  // DAILY intervals stay prime to 7 so that every weekday comes round.
  const interval = r.next() < 0.5;
  if (interval) parts.push(`INTERVAL=${r.pick(freq === 'DAILY' ? [2, 3, 5] : [2, 3, 5, 7, 13])}`);
  if (r.next() < 0.25) parts.push(`COUNT=${r.int(1, 60)}`);
  // Every second month may never be a listed month.
  const byMonth = !(freq === 'MONTHLY' && interval) && r.next() < 0.3;
  if (byMonth) parts.push(`BYMONTH=${[...new Set([r.int(1, 12), r.int(1, 12)])].join(',')}`);
  const yearly = freq === 'YEARLY' && !byMonth && r.next() < 0.3;
  if (yearly)
    parts.push(
      r.next() < 0.5 ? `BYWEEKNO=${r.pick([1, 20, 52, -1])}` : `BYYEARDAY=${r.pick([1, 60, 100, -1])}`,
    );
  const byMonthDay = freq !== 'WEEKLY' && !yearly && r.next() < 0.35;
  if (byMonthDay) parts.push(`BYMONTHDAY=${r.pick(byMonth ? [1, 13, 28, -1, -3] : [1, 13, 29, 31, -1, -3])}`);
  const numbered = (freq === 'MONTHLY' || freq === 'YEARLY') && !byMonthDay && !yearly && r.next() < 0.3;
  if (numbered) parts.push(`BYDAY=${r.pick([1, 2, -1])}${r.pick(DAYS)}`);
  else if (r.next() < 0.45)
    parts.push(`BYDAY=${[...new Set([r.pick(DAYS), r.pick(DAYS), r.pick(DAYS)])].join(',')}`);
  const plainDays = parts.some((p) => p.startsWith('BYDAY=') && !/\d/.test(p));
  if ((freq === 'MONTHLY' || freq === 'YEARLY') && plainDays && !byMonthDay && r.next() < 0.3) {
    parts.push(`BYSETPOS=${r.pick([1, 2, -1])}`);
  }
  if (freq === 'WEEKLY' && r.next() < 0.3) parts.push(`WKST=${r.pick(DAYS)}`);
  return parts.join(';');
}

/** The reference: rrule walked from the series start, as before windows were anchored. */
function fullExpansion(
  timing: Timing,
  startFloating: number,
  from: number,
  to: number,
  after?: number,
  limit = Infinity,
) {
  const rule = new RRule({ ...RRule.parseString(timing.recurrence!), dtstart: new Date(startFloating) });
  const timeOfDay = ((startFloating % DAY) + DAY) % DAY;
  const excluded = new Set(timing.excludedDates.map((d) => dateToFloating(d) + timeOfDay));
  const length = timing.endsAt - timing.startsAt;
  const starts: number[] = [];
  const earliest = toFloating(timing.timezone, from) - length - 3 * DAY;
  for (const date of rule.between(
    new Date(startFloating),
    new Date(toFloating(timing.timezone, to) + 2 * DAY),
    true,
  )) {
    // Floating times this far before the window cannot overlap it (offsets differ by less than a day).
    if (excluded.has(date.getTime()) || date.getTime() < earliest) continue;
    const startsAt = fromFloating(timing.timezone, date.getTime());
    if (startsAt + length > from && startsAt < to && (after === undefined || startsAt > after))
      starts.push(startsAt);
    if (starts.length >= limit) break;
  }
  return starts;
}

describe('window expansion', () => {
  it('gives the occurrences of a walk from the series start, for random rules, zones and windows', () => {
    const r = random(20_260_101);
    let compared = 0;
    for (let i = 0; i < 160; i++) {
      const rule = randomRule(r);
      const timezone = r.pick(['UTC', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kolkata']);
      // The start is the rule's first occurrence after a random day between 1900 and 2100.
      const base = Date.UTC(r.int(1900, 2100), r.int(0, 11), r.int(1, 28), r.int(0, 23), r.pick([0, 30]));
      const first = new RRule({ ...RRule.parseString(rule), count: null, dtstart: new Date(base) }).after(
        new Date(base),
        true,
      );
      if (!first || first.getUTCFullYear() > 2150) continue;
      const startFloating = first.getTime();
      const startsAt = fromFloating(timezone, startFloating);
      if (toFloating(timezone, startsAt) !== startFloating) continue; // a start inside a DST gap
      const length = r.pick([3600_000, 3 * DAY + 1800_000]);
      const timing: Timing = {
        allDay: false,
        timezone,
        startsAt,
        endsAt: startsAt + length,
        startDate: null,
        endDate: null,
        recurrence: rule,
        excludedDates: [],
      };
      const early = fullExpansion(timing, startFloating, startsAt, startsAt + 3 * 366 * DAY).slice(1, 4);
      timing.excludedDates = early.map((s) => floatingDate(toFloating(timezone, s)));
      for (let w = 0; w < 3; w++) {
        const from = startsAt + r.int(-30, 12 * 366) * DAY + r.int(0, 86_399) * 1000;
        const to = from + r.int(1, 366) * DAY;
        const after = r.next() < 0.3 ? from + r.int(0, 100) * DAY : undefined;
        const limit = r.next() < 0.3 ? r.int(1, 5) : Infinity;
        const expected = fullExpansion(timing, startFloating, from, to, after, limit);
        const actual = occurrencesBetween(timing, from, to, after, limit).map((o) => o.startsAt);
        expect({ rule, timezone, from, to, after, limit, starts: actual }).toEqual({
          rule,
          timezone,
          from,
          to,
          after,
          limit,
          starts: expected,
        });
        compared += 1;
      }
    }
    expect(compared).toBeGreaterThan(300);
  }, 120_000);

  it('tells whether a start is the first occurrence from its period alone, as a walk would', () => {
    const r = random(7);
    let firsts = 0;
    for (let i = 0; i < 300; i++) {
      const text = randomRule(r).replace(/;COUNT=\d+/, '');
      const base = Date.UTC(r.int(1900, 2100), r.int(0, 11), r.int(1, 28), r.int(0, 23));
      for (const start of [base, base + DAY, base + 3 * DAY]) {
        const rule = new RRule({ ...RRule.parseString(text), dtstart: new Date(start) });
        const walked = rule.after(new Date(start), true)?.getTime() === start;
        expect({ text, start, first: startsFirstPeriod(rule, start) }).toEqual({
          text,
          start,
          first: walked,
        });
        if (walked) firsts += 1;
      }
    }
    expect(firsts).toBeGreaterThan(100);
  });

  it('walks only the periods of the window, however far the series start lies', () => {
    const startsAt = Date.UTC(1900, 0, 1, 9);
    const timing: Timing = {
      allDay: false,
      timezone: 'America/New_York',
      startsAt,
      endsAt: startsAt + 3600_000,
      startDate: null,
      endDate: null,
      recurrence: 'FREQ=DAILY',
      excludedDates: [],
    };
    const before = expansionSteps();
    const found = occurrencesBetween(timing, Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 1));
    expect(found).toHaveLength(365);
    // The window's 365 days, two days of margin on each side and the first date past it (a walk from
    // 1900 takes 46,000).
    expect(expansionSteps() - before).toBeLessThanOrEqual(372);
  });
});
