// The periods of a recurrence rule (FREQ x INTERVAL, counted from the one holding DTSTART) in floating
// time. rrule walks every period from DTSTART, and a period without a match costs as much as one with
// one; these helpers let an expansion start at the period holding its window and a check stop after one
// period, with the same occurrences as a walk from the series start.
import * as rruleModule from 'rrule';
import { DAY, wallClock } from './zoned-time.ts';

// rrule ships CommonJS to Node and ESM to bundlers: take the namespace either way.
const { RRule } = ((rruleModule as any).default ?? rruleModule) as typeof rruleModule;
export type Rule = InstanceType<typeof RRule>;
type Options = Rule['options'];

const WEEKDAYS = [RRule.MO, RRule.TU, RRule.WE, RRule.TH, RRule.FR, RRule.SA, RRule.SU];

/**
 * The rule's options with every value rrule derives from DTSTART written out (the day of the month for
 * MONTHLY, month and day for YEARLY, the weekday for WEEKLY, the time of day), so a copy started at
 * another period keeps the same days and times.
 */
export function explicitOptions(rule: Rule): Partial<Options> {
  const o = rule.options;
  const weekdays = [
    ...(o.byweekday ?? []).map((day) => WEEKDAYS[day]!),
    ...(o.bynweekday ?? []).map(([day, n]) => WEEKDAYS[day!]!.nth(n!)),
  ];
  return {
    freq: o.freq,
    dtstart: o.dtstart,
    interval: o.interval,
    wkst: o.wkst,
    count: o.count,
    until: o.until,
    tzid: null,
    bysetpos: o.bysetpos,
    bymonth: o.bymonth,
    byyearday: o.byyearday,
    byweekno: o.byweekno,
    bymonthday: [...(o.bymonthday ?? []), ...(o.bynmonthday ?? [])],
    byweekday: weekdays.length ? (weekdays as any) : null,
    byhour: o.byhour,
    byminute: o.byminute,
    bysecond: o.bysecond,
  };
}

const fields = (t: number) => {
  const d = new Date(t);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth(),
    day: d.getUTCDate(),
    weekday: (d.getUTCDay() + 6) % 7,
  };
};

/**
 * The period index holding `at` and the start of period `index`, for a rule whose first period holds
 * `start`. Periods follow rrule: a DAILY period is a day, WEEKLY a week from WKST, MONTHLY a month,
 * YEARLY a year, INTERVAL of them apart; period 0 starts at `start` itself.
 */
function periods(o: Options, start: number) {
  const s = fields(start);
  const n = o.interval;
  const day0 = wallClock(s.year, s.month, s.day);
  const linear = (first: number, length: number) => ({
    index: (at: number) => Math.floor((at - first) / length),
    start: (index: number) => first + index * length,
  });
  switch (o.freq) {
    case RRule.DAILY:
      return linear(day0, n * DAY);
    case RRule.WEEKLY:
      return linear(day0 - ((s.weekday - o.wkst + 7) % 7) * DAY, 7 * n * DAY);
    case RRule.MONTHLY: {
      const month0 = s.year * 12 + s.month;
      return {
        index: (at: number) => Math.floor((fields(at).year * 12 + fields(at).month - month0) / n),
        start: (index: number) => {
          const month = month0 + index * n;
          return wallClock(Math.floor(month / 12), month % 12, 1);
        },
      };
    }
    case RRule.YEARLY:
      return {
        index: (at: number) => Math.floor((fields(at).year - s.year) / n),
        start: (index: number) => wallClock(s.year + index * n, 0, 1),
      };
    default:
      throw new Error(`unsupported frequency ${o.freq}`);
  }
}

/** The start of the latest period beginning at or before `at`; the series start when that is the first. */
export function periodStartBefore(rule: Rule, start: number, at: number): number {
  const p = periods(rule.options, start);
  const index = p.index(at);
  return index > 0 ? p.start(index) : start;
}

/** The start of the period `count` periods after the first. */
export function periodStartAfter(rule: Rule, start: number, count: number): number {
  return periods(rule.options, start).start(count);
}

/** A copy of the rule started at `anchor` (a period start): the same occurrences from there on. */
export function ruleFrom(rule: Rule, anchor: number): Rule {
  return new RRule({ ...explicitOptions(rule), dtstart: new Date(anchor) });
}

// INTERVALs that put the second period past rrule's last year 9999 from any start.
const ONE_PERIOD: Record<number, number> = {
  [RRule.DAILY]: 4_000_000,
  [RRule.WEEKLY]: 600_000,
  [RRule.MONTHLY]: 130_000,
  [RRule.YEARLY]: 10_000,
};
// The Gregorian calendar repeats exactly every 400 years (146,097 days: same weekdays, same leap years).
const CYCLE = 146_097 * DAY;

/**
 * Whether `start` is the first occurrence of the rule (no COUNT): one of its first period's occurrences.
 * rrule walks only that period, on a copy moved by whole 400-year cycles close to its last year 9999, so
 * that stepping past 9999 (day by day for DAILY and WEEKLY) is short too.
 */
export function startsFirstPeriod(rule: Rule, start: number): boolean {
  const shift = Math.max(0, Math.floor((9999 - new Date(start).getUTCFullYear()) / 400)) * CYCLE;
  const { until } = rule.options;
  const probe = new RRule({
    ...explicitOptions(rule),
    dtstart: new Date(start + shift),
    until: until ? new Date(until.getTime() + shift) : null,
    count: null,
    interval: ONE_PERIOD[rule.options.freq]!,
  });
  return probe.all()[0]?.getTime() === start + shift;
}
