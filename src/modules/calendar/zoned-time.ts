// Wall-clock arithmetic in IANA time zones with the platform's Intl data. A "floating" time is a local
// wall-clock time stored as if it were UTC (the representation the rrule package expands in).

const DAY = 86_400_000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

let zoneNames: Map<string, string> | undefined;

/** The IANA name as the platform spells it, or undefined when it is not a time zone name. */
export function canonicalTimeZone(name: string): string | undefined {
  zoneNames ??= new Map(Intl.supportedValuesOf('timeZone').map((zone) => [zone.toLowerCase(), zone]));
  const known = zoneNames.get(name.toLowerCase());
  if (known) return known;
  // Links and aliases outside the canonical list (UTC, Etc/UTC, US/Eastern) are accepted as written;
  // offsets such as +05:00 are not names.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return name;
  } catch {
    return undefined;
  }
}

/**
 * Floating milliseconds of a wall-clock time in any year (astronomical numbering: 0 is 1 BC). Date.UTC
 * would read the years 0 to 99 as 1900 to 1999.
 */
export function wallClock(
  year: number,
  month: number,
  day: number,
  hour = 0,
  minute = 0,
  second = 0,
): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The local wall-clock time of an instant, as floating milliseconds (offsets kept to the second). */
export function toFloating(timeZone: string, instant: number): number {
  const seconds = Math.floor(instant / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(seconds))) parts[part.type] = part.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const local = wallClock(
    year,
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
  return local + (instant - seconds);
}

export function offsetAt(timeZone: string, instant: number): number {
  return toFloating(timeZone, instant) - instant;
}

/**
 * The instant a local wall-clock time names (RFC 5545 3.3.5): an ambiguous time (clocks going back) is its
 * first occurrence; a time skipped by clocks going forward is read with the offset before the gap, so
 * 02:30 on a spring-forward night becomes 03:30.
 */
export function fromFloating(timeZone: string, floating: number): number {
  const before = offsetAt(timeZone, floating - DAY);
  const after = offsetAt(timeZone, floating + DAY);
  const candidates = [before, after]
    .map((offset) => floating - offset)
    .filter((instant) => toFloating(timeZone, instant) === floating)
    .sort((a, b) => a - b);
  return candidates[0] ?? floating - before;
}

const two = (n: number) => String(n).padStart(2, '0');

/**
 * An offset as +HH:MM, with :SS when it has seconds: local mean time (America/New_York before 1883 is
 * -04:56:02) would otherwise not add up with the local time it belongs to.
 */
function offsetText(offsetMs: number): string {
  const seconds = Math.round(offsetMs / 1000);
  const abs = Math.abs(seconds);
  const text = `${seconds < 0 ? '-' : '+'}${two(Math.floor(abs / 3600))}:${two(Math.floor(abs / 60) % 60)}`;
  return abs % 60 ? `${text}:${two(abs % 60)}` : text;
}

/** YYYY-MM-DDTHH:MM:SS of a floating time (a year beyond 0000-9999 keeps ISO 8601's expanded form). */
function floatingText(floating: number): string {
  return new Date(floating).toISOString().replace(/\.\d{3}Z$/, '');
}

/** The local time with the zone's offset at that instant, to the second: 2026-03-09T09:00:00-04:00. */
export function formatInZone(timeZone: string, instant: number): string {
  const floating = toFloating(timeZone, instant);
  return floatingText(floating) + offsetText(floating - instant);
}

/** YYYY-MM-DD of a floating time. */
export function floatingDate(floating: number): string {
  return floatingText(floating).replace(/T.*$/, '');
}

/** Floating midnight of a YYYY-MM-DD date. */
export function dateToFloating(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

export { DAY, offsetText };
