// Windows and buckets of the Object Analytics reads. Rollups are hourly, so every window is whole UTC hours:
// a relative window is every hour overlapping the last <window> (the current hour included), from/to are
// widened to the hours holding them. Day buckets follow local midnight in an IANA zone (docs/contract.md).
import { validationFailed } from '../../core/errors.ts';
import {
  canonicalTimeZone,
  DAY,
  dateToFloating,
  floatingDate,
  fromFloating,
  toFloating,
} from '../calendar/zoned-time.ts';

export const HOUR = 3_600_000;
export const HOURS_OF = { '1h': 1, '24h': 24, '7d': 168, '30d': 720, '90d': 2160 } as const;
export type WindowName = keyof typeof HOURS_OF;
export const WINDOW_NAMES = Object.keys(HOURS_OF) as WindowName[];

/** At most this many buckets in one timeseries: 90 days by hour (2,161) fits. */
export const MAX_POINTS = 2_200;

export interface WindowInput {
  window?: WindowName;
  from?: string;
  to?: string;
}

/** A window in epoch milliseconds, both ends on whole UTC hours, `to` exclusive. */
export interface Window {
  from: number;
  to: number;
}

const floorHour = (ms: number) => Math.floor(ms / HOUR) * HOUR;
const ceilHour = (ms: number) => Math.ceil(ms / HOUR) * HOUR;

export function resolveWindow(input: WindowInput, now: string): Window {
  if (input.window !== undefined && (input.from !== undefined || input.to !== undefined)) {
    const field = input.from !== undefined ? 'from' : 'to';
    throw validationFailed([{ field, message: 'cannot be sent with window: send window, or from and to' }]);
  }
  if (input.to !== undefined && input.from === undefined) {
    throw validationFailed([{ field: 'from', message: 'is required with to' }]);
  }
  const end = floorHour(Date.parse(now)) + HOUR;
  if (input.from !== undefined) {
    const from = floorHour(Date.parse(input.from));
    const to = input.to !== undefined ? ceilHour(Date.parse(input.to)) : end;
    if (to <= from) {
      throw validationFailed([
        input.to !== undefined
          ? { field: 'to', message: 'must be after from' }
          : { field: 'from', message: 'must be before now' },
      ]);
    }
    return { from, to };
  }
  return { from: end - HOUR - HOURS_OF[input.window ?? '7d'] * HOUR, to: end };
}

export const iso = (ms: number) => new Date(ms).toISOString();

/** The window as stored text: rollup hours and occurred_at are ISO 8601 UTC, which sorts as it reads. */
export function windowText(window: Window) {
  return {
    from: iso(window.from),
    to: iso(window.to),
    // UTC days it touches, for the daily rollups and actor sketches.
    fromDay: iso(window.from).slice(0, 10),
    toDay: iso(window.to - 1).slice(0, 10),
  };
}

export type Interval = 'hour' | 'day';

export function timeZoneOf(name: string | undefined): string {
  if (name === undefined) return 'UTC';
  const zone = canonicalTimeZone(name);
  if (!zone) throw validationFailed([{ field: 'timezone', message: 'is not an IANA time zone name' }]);
  return zone;
}

export function defaultInterval(window: Window): Interval {
  return window.to - window.from <= 48 * HOUR ? 'hour' : 'day';
}

const localDate = (timeZone: string, instant: number) => floatingDate(toFloating(timeZone, instant));

/**
 * The buckets of a window: their starts and where an hourly rollup falls. Hour buckets are the window's
 * UTC hours; day buckets are the local days of the window's hours, each starting at local midnight (a
 * 23- or 25-hour day on DST changes). An hour belongs to the local day its start falls in, which matters
 * only in zones whose offset is not whole hours.
 */
export function buckets(window: Window, interval: Interval, timeZone: string) {
  const tooMany = (count: number) =>
    validationFailed([
      interval === 'hour'
        ? { field: 'interval', message: `the window holds ${count} hours, more than ${MAX_POINTS}: use day` }
        : { field: 'from', message: `the window holds more than ${MAX_POINTS} days: narrow it` },
    ]);
  if (interval === 'hour') {
    const count = (window.to - window.from) / HOUR;
    if (count > MAX_POINTS) throw tooMany(count);
    return {
      starts: Array.from({ length: count }, (_, i) => window.from + i * HOUR),
      indexOf: (hour: number) => (hour - window.from) / HOUR,
    };
  }
  // Offsets stay within a day, so this bounds the count before walking the days.
  if ((window.to - window.from) / DAY > MAX_POINTS) throw tooMany(MAX_POINTS + 1);
  const first = dateToFloating(localDate(timeZone, window.from));
  const last = dateToFloating(localDate(timeZone, window.to - HOUR));
  const count = Math.round((last - first) / DAY) + 1;
  if (count > MAX_POINTS) throw tooMany(count);
  return {
    starts: Array.from({ length: count }, (_, i) => fromFloating(timeZone, first + i * DAY)),
    indexOf: (hour: number) => Math.round((dateToFloating(localDate(timeZone, hour)) - first) / DAY),
  };
}
