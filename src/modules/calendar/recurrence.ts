// RFC 5545 recurrence rules: validated part by part, normalized, and expanded with the rrule package in
// floating time (local wall clock), then mapped back to instants in the event's time zone, so every
// occurrence keeps its local time across daylight-saving changes.
import * as rruleModule from 'rrule';
import { validationFailed } from '../../core/errors.ts';
import { withinDateTimeRange } from '../../core/schema.ts';
import {
  periodStartAfter,
  periodStartBefore,
  type Rule,
  ruleFrom,
  startsFirstPeriod,
} from './rule-periods.ts';
import { DAY, dateToFloating, floatingDate, fromFloating, toFloating, wallClock } from './zoned-time.ts';

// rrule ships CommonJS to Node and ESM to bundlers: take the namespace either way.
const { RRule, RRuleSet } = ((rruleModule as any).default ?? rruleModule) as typeof rruleModule;
type RRuleSetT = InstanceType<typeof RRuleSet>;

const MAX_COUNT = 1000;
/** A COUNT rule must be complete within this many periods: its expansion always starts at its start. */
const COUNT_PERIODS = 2000;
const INDEX_HORIZON = 20 * 366 * DAY;
// rrule's last instant (its MAXYEAR is 9999).
const RRULE_END = wallClock(9999, 11, 31, 23, 59, 59);
const DAYNAME = '(MO|TU|WE|TH|FR|SA|SU)';
const signed = (max: number) => (value: string) =>
  value
    .split(',')
    .every((n) => /^[+-]?\d{1,3}$/.test(n) && Math.abs(Number(n)) >= 1 && Math.abs(Number(n)) <= max);

const PARTS: Record<string, (value: string) => boolean> = {
  FREQ: (v) => /^(DAILY|WEEKLY|MONTHLY|YEARLY)$/.test(v),
  INTERVAL: (v) => /^[1-9]\d{0,2}$/.test(v),
  COUNT: (v) => /^[1-9]\d{0,3}$/.test(v) && Number(v) <= MAX_COUNT,
  UNTIL: (v) => /^\d{8}(T\d{6}Z?)?$/.test(v) && withinDateTimeRange(untilParts(v).date),
  BYMONTH: (v) => v.split(',').every((n) => /^\d{1,2}$/.test(n) && Number(n) >= 1 && Number(n) <= 12),
  BYWEEKNO: signed(53),
  BYYEARDAY: signed(366),
  BYMONTHDAY: signed(31),
  BYDAY: (v) =>
    v.split(',').every((item) => {
      const match = new RegExp(`^([+-]?\\d{1,2})?${DAYNAME}$`).exec(item);
      return (
        Boolean(match) &&
        (match![1] === undefined || (Math.abs(Number(match![1])) >= 1 && Math.abs(Number(match![1])) <= 53))
      );
    }),
  BYSETPOS: signed(366),
  WKST: (v) => new RegExp(`^${DAYNAME}$`).test(v),
};
const ORDER = Object.keys(PARTS);

function untilParts(value: string) {
  const date = Date.parse(`${value.slice(0, 4)}-${value.slice(4, 6)}-${value.slice(6, 8)}T00:00:00Z`);
  const time = value.length > 8 ? value.slice(9, 15) : undefined;
  return { date, time, utc: value.endsWith('Z') };
}

const compact = (iso: string) => iso.replace(/[-:]/g, '').replace(/\.\d{3}/, '');

export interface Timing {
  allDay: boolean;
  timezone: string;
  /** Instants (ms) of the first occurrence; for all-day events the start of start_date and of the day after end_date. */
  startsAt: number;
  endsAt: number;
  startDate: string | null;
  endDate: string | null;
  recurrence: string | null;
  excludedDates: string[];
}

const fail = (message: string, field = 'recurrence') => validationFailed([{ field, message }]);

/**
 * Validates an RRULE value (with or without the RRULE: prefix) and returns it normalized: parts in a fixed
 * order, UNTIL in UTC (a date for all-day events). Sub-daily rules and BYHOUR/BYMINUTE/BYSECOND are refused:
 * an occurrence takes its time of day from the start.
 */
export function normalizeRule(text: string, timing: Omit<Timing, 'recurrence'>): string {
  const body = text.trim().replace(/^RRULE:/i, '');
  if (/[\r\n]/.test(body) || /DTSTART|TZID/i.test(body))
    throw fail('must be a single RRULE value; the start comes from starts_at');
  const parts = new Map<string, string>();
  for (const piece of body.split(';')) {
    const [rawName, value, ...rest] = piece.split('=');
    const name = (rawName ?? '').toUpperCase();
    if (!name || value === undefined || rest.length) throw fail(`has a malformed part "${piece}"`);
    if (['BYHOUR', 'BYMINUTE', 'BYSECOND'].includes(name))
      throw fail(`${name} is not supported: the time of day comes from starts_at`);
    if (!PARTS[name]) throw fail(`has an unknown part ${name}`);
    if (parts.has(name)) throw fail(`repeats ${name}`);
    const upper = value.toUpperCase();
    if (!PARTS[name](upper)) {
      if (name === 'FREQ' && /^(SECONDLY|MINUTELY|HOURLY)$/.test(upper))
        throw fail('FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY');
      throw fail(`has an invalid ${name} value "${value}"`);
    }
    parts.set(name, upper);
  }
  const freq = parts.get('FREQ');
  if (!freq) throw fail('needs FREQ (DAILY, WEEKLY, MONTHLY or YEARLY)');
  if (parts.has('COUNT') && parts.has('UNTIL')) throw fail('may have COUNT or UNTIL, not both');
  if (parts.has('BYWEEKNO') && freq !== 'YEARLY') throw fail('BYWEEKNO needs FREQ=YEARLY');
  if (parts.has('BYYEARDAY') && freq !== 'YEARLY') throw fail('BYYEARDAY needs FREQ=YEARLY');
  if (parts.has('BYMONTHDAY') && freq === 'WEEKLY') throw fail('BYMONTHDAY cannot be used with FREQ=WEEKLY');
  if (/[+-]?\d/.test(parts.get('BYDAY') ?? '') && !['MONTHLY', 'YEARLY'].includes(freq)) {
    throw fail('numbered BYDAY values (e.g. 1MO, -1FR) need FREQ=MONTHLY or YEARLY');
  }
  if (parts.has('BYSETPOS') && ![...parts.keys()].some((p) => p.startsWith('BY') && p !== 'BYSETPOS')) {
    throw fail('BYSETPOS needs another BY part');
  }
  const until = parts.get('UNTIL');
  if (until) parts.set('UNTIL', normalizeUntil(until, timing));
  return ORDER.filter((name) => parts.has(name))
    .map((name) => `${name}=${parts.get(name)}`)
    .join(';');
}

function normalizeUntil(value: string, timing: Omit<Timing, 'recurrence'>): string {
  const { date, time, utc } = untilParts(value);
  const floatingUntil = time
    ? date +
      (Number(time.slice(0, 2)) * 3600 + Number(time.slice(2, 4)) * 60 + Number(time.slice(4, 6))) * 1000
    : date + DAY - 1000; // a date alone ends with that local day
  const instant = utc && time ? floatingUntil : fromFloating(timing.timezone, floatingUntil);
  if (timing.allDay)
    return floatingDate(utc && time ? toFloating(timing.timezone, instant) : floatingUntil).replace(/-/g, '');
  return compact(new Date(instant).toISOString());
}

function dtstartFloating(timing: Timing): number {
  return timing.allDay ? dateToFloating(timing.startDate!) : toFloating(timing.timezone, timing.startsAt);
}

/** The rule in floating time, from the first start. */
function floatingRule(timing: Timing): { rule: Rule; start: number } {
  const options = RRule.parseString(timing.recurrence!);
  const start = dtstartFloating(timing);
  let until: Date | undefined;
  if (options.until) {
    until = timing.allDay
      ? new Date(options.until.getTime() + DAY - 1000)
      : new Date(toFloating(timing.timezone, options.until.getTime()));
  }
  return {
    rule: new RRule({ ...options, tzid: null, dtstart: new Date(start), until: until ?? null }),
    start,
  };
}

/**
 * The rule set whose walk starts at the period holding `from` (floating), minus the excluded dates. A
 * COUNT rule starts at its start, since its occurrences are counted from there: it is complete within
 * COUNT_PERIODS periods and finished series are skipped by series_ends_at.
 */
function ruleSetFrom(timing: Timing, from: number): RRuleSetT {
  const { rule, start } = floatingRule(timing);
  const anchor = rule.options.count ? start : periodStartBefore(rule, start, from);
  const set = new RRuleSet();
  set.rrule(anchor === start ? rule : ruleFrom(rule, anchor));
  const timeOfDay = ((start % DAY) + DAY) % DAY;
  for (const date of timing.excludedDates) set.exdate(new Date(dateToFloating(date) + timeOfDay));
  return set;
}

export interface Occurrence {
  startsAt: number;
  endsAt: number;
  startDate: string | null;
  endDate: string | null;
}

function occurrenceAt(timing: Timing, floating: number): Occurrence {
  if (!timing.allDay) {
    const startsAt = fromFloating(timing.timezone, floating);
    return { startsAt, endsAt: startsAt + (timing.endsAt - timing.startsAt), startDate: null, endDate: null };
  }
  const span = Math.round((dateToFloating(timing.endDate!) - dateToFloating(timing.startDate!)) / DAY);
  return {
    startsAt: fromFloating(timing.timezone, floating),
    endsAt: fromFloating(timing.timezone, floating + (span + 1) * DAY),
    startDate: floatingDate(floating),
    endDate: floatingDate(floating + span * DAY),
  };
}

/**
 * Checks the rule against the start (the start must be its first occurrence; a COUNT rule must be complete
 * within COUNT_PERIODS periods) and returns the UTC end of the last occurrence of a COUNT series, or of an
 * UNTIL series over within 20 years, else null (the value lets window queries skip finished series).
 */
export function checkRule(timing: Timing): string | null {
  const { rule, start } = floatingRule(timing);
  if (!startsFirstPeriod(rule, start)) {
    throw fail('must include the start as its first occurrence (e.g. starts_at on a Monday for BYDAY=MO)');
  }
  const { count, until } = rule.options;
  if (!count && !until) return null;
  if (!count && until!.getTime() - start > INDEX_HORIZON) return null;
  // Past rrule's last year (or past what a Date can hold, for INTERVAL=999 yearly) the rule simply ends.
  const budgetEnd = periodStartAfter(rule, start, COUNT_PERIODS) - 1;
  const horizon = count ? (budgetEnd < RRULE_END ? budgetEnd : RRULE_END) : until!.getTime();
  const found = rule.between(new Date(start), new Date(horizon), true);
  if (count && found.length < count && horizon < RRULE_END) {
    throw fail(
      `COUNT=${count} is not reached within ${COUNT_PERIODS} periods of FREQ and INTERVAL: use UNTIL, or a ` +
        'FREQ that fits the rule (e.g. FREQ=YEARLY instead of FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29)',
    );
  }
  return new Date(occurrenceAt(timing, found.at(-1)!.getTime()).endsAt).toISOString();
}

let steps = 0;

/** Occurrence dates rrule has produced for window expansions since the process started (a work measure). */
export function expansionSteps(): number {
  return steps;
}

/** Calls `visit` with each occurrence (floating) from `lower` to `upper` in order, until it returns false. */
function expand(timing: Timing, lower: number, upper: number, visit: (floating: number) => boolean): void {
  ruleSetFrom(timing, lower).all((date) => {
    steps += 1;
    const floating = date.getTime();
    if (floating < lower) return true;
    return floating <= upper && visit(floating);
  });
}

/**
 * Occurrences overlapping [from, to), in start order, after `after` (an occurrence start, exclusive) when
 * given, at most `limit` of them. The walk starts at the rule's period holding the earliest start that
 * can qualify, so its cost follows the window, not the distance from the series start.
 */
export function occurrencesBetween(
  timing: Timing,
  from: number,
  to: number,
  after?: number,
  limit = Infinity,
): Occurrence[] {
  const inside = (occurrence: Occurrence) =>
    occurrence.endsAt > from &&
    occurrence.startsAt < to &&
    (after === undefined || occurrence.startsAt > after);
  if (!timing.recurrence) {
    const single = occurrenceAt(timing, dtstartFloating(timing));
    return inside(single) && limit > 0 ? [single] : [];
  }
  // Two days of margin cover any offset change between an instant and the floating times near it.
  let lower = toFloating(timing.timezone, from) - (timing.endsAt - timing.startsAt);
  if (after !== undefined) lower = Math.max(lower, toFloating(timing.timezone, after));
  const found: Occurrence[] = [];
  expand(timing, lower - 2 * DAY, toFloating(timing.timezone, to) + 2 * DAY, (floating) => {
    const occurrence = occurrenceAt(timing, floating);
    if (inside(occurrence)) found.push(occurrence);
    return found.length < limit;
  });
  return found;
}

/** The number of occurrences starting in [from, to) (the workspace summary's upcoming events). */
export function occurrencesStartingBetween(timing: Timing, from: number, to: number): number {
  if (!timing.recurrence) {
    const start = occurrenceAt(timing, dtstartFloating(timing)).startsAt;
    return start >= from && start < to ? 1 : 0;
  }
  let count = 0;
  expand(
    timing,
    toFloating(timing.timezone, from) - 2 * DAY,
    toFloating(timing.timezone, to) + 2 * DAY,
    (floating) => {
      const start = occurrenceAt(timing, floating).startsAt;
      if (start >= from && start < to) count += 1;
      return true;
    },
  );
  return count;
}

/** The local start of an excluded date's occurrence, for EXDATE in the iCalendar export. */
export function excludedStart(timing: Timing, date: string): number {
  const start = dtstartFloating(timing);
  return dateToFloating(date) + (((start % DAY) + DAY) % DAY);
}
