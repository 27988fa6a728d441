// When a scheduled artifact runs (docs/modules/bi.md, Scheduling). Daily, weekly and monthly rules name a
// local wall-clock time: the rrule package expands it in floating time (zoned-time.ts), then each local time
// becomes an instant: one that exists twice (clocks going back) runs once, at its first occurrence; one that
// does not exist (clocks going forward) runs at the next valid minute, the end of the gap. An hourly rule
// names no local hour, so it runs once every real hour, at the minute of the local clock.
import * as rruleModule from 'rrule';
import { validationFailed } from '../../../core/errors.ts';
import { canonicalTimeZone, DAY, fromFloating, toFloating } from '../../calendar/zoned-time.ts';

// rrule ships CommonJS to Node and ESM to bundlers: take the namespace either way.
const { RRule } = ((rruleModule as any).default ?? rruleModule) as typeof rruleModule;

export const CADENCES = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export type Cadence = (typeof CADENCES)[number];
export const WEEKDAYS = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export type Weekday = (typeof WEEKDAYS)[number];
/** A day of the month, or the month's last day whatever its length. */
export type DayOfMonth = number | 'last';

export interface ScheduleRule {
  cadence: Cadence;
  minute: number;
  /** daily, weekly, monthly */
  hour: number | null;
  /** weekly */
  weekday: Weekday | null;
  /** monthly */
  day_of_month: DayOfMonth | null;
  /** IANA name, canonical. */
  timezone: string;
}

/** The parts of a rule as a caller sends them (create, update). */
export interface RuleInput {
  cadence: string;
  minute?: number;
  hour?: number | null;
  weekday?: Weekday | null;
  day_of_month?: DayOfMonth | null;
  timezone?: string;
}

const MINUTE = 60_000;
const HOUR = 3_600_000;

/** The field each cadence needs besides minute, and the cadences each optional field belongs to. */
const NEEDS: Record<Cadence, readonly ('hour' | 'weekday' | 'day_of_month')[]> = {
  hourly: [],
  daily: ['hour'],
  weekly: ['hour', 'weekday'],
  monthly: ['hour', 'day_of_month'],
};

/** Whether a cadence uses an optional rule field (hour, weekday, day_of_month). */
export const cadenceUses = (cadence: string, field: 'hour' | 'weekday' | 'day_of_month'): boolean =>
  (NEEDS[cadence.toLowerCase() as Cadence] ?? []).includes(field);

/**
 * A complete, normalized rule from its parts, or validation_failed naming each wrong field: a field the
 * cadence needs is required, a field it does not use is refused (so a weekday sent with a daily cadence is
 * not silently ignored). The spec's capitalized cadences (Hourly ...) are accepted and stored lower-case.
 */
export function ruleFrom(input: RuleInput): ScheduleRule {
  const cadence = input.cadence.toLowerCase() as Cadence;
  const errors: { field: string; message: string }[] = [];
  if (!CADENCES.includes(cadence)) {
    errors.push({ field: 'cadence', message: `must be one of: ${CADENCES.join(', ')}` });
  }
  const timezone = canonicalTimeZone(input.timezone ?? 'UTC');
  if (!timezone) errors.push({ field: 'timezone', message: 'is not an IANA time zone name' });
  const minute = input.minute ?? 0;
  if (!Number.isInteger(minute) || minute < 0 || minute > 59) {
    errors.push({ field: 'minute', message: 'must be an integer from 0 to 59' });
  }
  const needs = NEEDS[cadence] ?? [];
  for (const field of ['hour', 'weekday', 'day_of_month'] as const) {
    const value = input[field];
    const set = value !== undefined && value !== null;
    if (!CADENCES.includes(cadence)) continue;
    if (needs.includes(field) && !set)
      errors.push({ field, message: `is required for a ${cadence} cadence` });
    if (!needs.includes(field) && set) {
      const users = CADENCES.filter((c) => NEEDS[c].includes(field)).join(' and ');
      errors.push({ field, message: `applies to ${users} cadences only; a ${cadence} rule has none` });
    }
  }
  const { hour, weekday, day_of_month: day } = input;
  if (hour != null && (!Number.isInteger(hour) || hour < 0 || hour > 23)) {
    errors.push({ field: 'hour', message: 'must be an integer from 0 to 23' });
  }
  if (weekday != null && !WEEKDAYS.includes(weekday)) {
    errors.push({ field: 'weekday', message: `must be one of: ${WEEKDAYS.join(', ')}` });
  }
  if (day != null && day !== 'last' && (!Number.isInteger(day) || day < 1 || day > 31)) {
    errors.push({ field: 'day_of_month', message: 'must be an integer from 1 to 31, or last' });
  }
  if (errors.length) throw validationFailed(errors);
  const uses = (field: 'hour' | 'weekday' | 'day_of_month') => NEEDS[cadence].includes(field);
  return {
    cadence,
    minute,
    hour: uses('hour') ? hour! : null,
    weekday: uses('weekday') ? weekday! : null,
    day_of_month: uses('day_of_month') ? day! : null,
    timezone: timezone!,
  };
}

/** The first instant (epoch ms) strictly after `after` at which the rule runs. */
export function nextOccurrence(rule: ScheduleRule, after: number): number {
  return rule.cadence === 'hourly' ? nextHourly(rule, after) : nextLocal(rule, after);
}

/**
 * Hourly: the first whole minute after `after` whose local minute is the rule's. Whole-hour zones read the
 * same minute in UTC; a zone offset by a half or quarter hour, or a DST change of 30 minutes, shifts it. The
 * candidates come from the offsets in force over the next two hours (at most one change in between).
 */
function nextHourly(rule: ScheduleRule, after: number): number {
  const offsets = new Set([after, after + HOUR, after + 2 * HOUR].map((t) => offsetAt(rule.timezone, t)));
  const candidates: number[] = [];
  for (const offset of offsets) {
    const wanted = rule.minute * MINUTE - (((offset % HOUR) + HOUR) % HOUR);
    const base = Math.floor(after / HOUR) * HOUR + (((wanted % HOUR) + HOUR) % HOUR);
    for (const at of [base - HOUR, base, base + HOUR, base + 2 * HOUR]) {
      if (at > after && localMinute(rule.timezone, at) === rule.minute) candidates.push(at);
    }
  }
  if (candidates.length) return Math.min(...candidates);
  // Unreachable for real zones; a plain walk keeps the answer right if one ever changes twice in two hours.
  let at = Math.floor(after / MINUTE) * MINUTE + MINUTE;
  while (localMinute(rule.timezone, at) !== rule.minute) at += MINUTE;
  return at;
}

const offsetAt = (zone: string, instant: number) => toFloating(zone, instant) - instant;
const localMinute = (zone: string, instant: number) => {
  const floating = toFloating(zone, instant);
  return floating % MINUTE === 0 ? new Date(floating).getUTCMinutes() : -1;
};

const RRULE_DAYS = { monday: 0, tuesday: 1, wednesday: 2, thursday: 3, friday: 4, saturday: 5, sunday: 6 };

/** The rrule options of a daily, weekly or monthly rule's local times. */
function localTimes(rule: ScheduleRule, dtstart: number) {
  const time = { byhour: [rule.hour!], byminute: [rule.minute], bysecond: [0], dtstart: new Date(dtstart) };
  if (rule.cadence === 'daily') return new RRule({ freq: RRule.DAILY, ...time });
  if (rule.cadence === 'weekly') {
    return new RRule({ freq: RRule.WEEKLY, byweekday: [RRULE_DAYS[rule.weekday!]], ...time });
  }
  const day = rule.day_of_month!;
  if (day === 'last') return new RRule({ freq: RRule.MONTHLY, bymonthday: [-1], ...time });
  if (day <= 28) return new RRule({ freq: RRule.MONTHLY, bymonthday: [day], ...time });
  // Day 29-31 in a shorter month runs on its last day: the latest of 28..day the month has.
  const days = Array.from({ length: day - 27 }, (_, i) => 28 + i);
  return new RRule({ freq: RRule.MONTHLY, bymonthday: days, bysetpos: [-1], ...time });
}

/**
 * Daily, weekly, monthly: the local times from two days before `after` (offsets differ by less than a day)
 * in order, each mapped to its instant; the first instant after `after` is the answer. The mapping never
 * goes backwards, so the first one past `after` is the earliest.
 */
function nextLocal(rule: ScheduleRule, after: number): number {
  const from = toFloating(rule.timezone, after) - 2 * DAY;
  const monthStart = new Date(from);
  monthStart.setUTCDate(1);
  monthStart.setUTCHours(0, 0, 0, 0);
  const times = localTimes(rule, monthStart.getTime());
  let cursor = new Date(from);
  for (let i = 0; i < 12; i++) {
    const local = times.after(cursor, false);
    if (!local) break;
    const instant = instantOf(rule.timezone, local.getTime());
    if (instant > after) return instant;
    cursor = local;
  }
  throw new Error(`no occurrence of ${JSON.stringify(rule)} after ${new Date(after).toISOString()}`);
}

/**
 * The instant a local time runs at: its first occurrence when it exists (twice when clocks go back: the
 * earlier one); inside a spring-forward gap, the first minute after the gap.
 */
export function instantOf(zone: string, floating: number): number {
  const instant = fromFloating(zone, floating);
  if (toFloating(zone, instant) === floating) return instant;
  // In a gap: the transition lies between the instants this time names under the offsets around it.
  let low = floating - offsetAt(zone, floating + DAY);
  let high = floating - offsetAt(zone, floating - DAY);
  // Smallest whole second whose local time is past `floating`: the end of the gap.
  low = Math.floor(low / 1000);
  high = Math.ceil(high / 1000);
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (toFloating(zone, middle * 1000) > floating) high = middle;
    else low = middle + 1;
  }
  return Math.ceil((low * 1000) / MINUTE) * MINUTE;
}
