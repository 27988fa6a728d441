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

/** The local wall-clock time of an instant, as floating milliseconds. */
export function toFloating(timeZone: string, instant: number): number {
  const seconds = Math.floor(instant / 1000) * 1000;
  const parts: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(seconds))) parts[part.type] = part.value;
  let year = Number(parts.year);
  if (parts.era === 'BC' || parts.era === 'B') year = 1 - year;
  const local = Date.UTC(
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

function offsetText(offsetMs: number): string {
  const minutes = Math.round(offsetMs / 60_000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}

/** RFC 3339 with the zone's offset at that instant, to the second: 2026-03-09T09:00:00-04:00. */
export function formatInZone(timeZone: string, instant: number): string {
  const floating = toFloating(timeZone, instant);
  return new Date(floating).toISOString().slice(0, 19) + offsetText(floating - instant);
}

/** YYYY-MM-DD of a floating time. */
export function floatingDate(floating: number): string {
  return new Date(floating).toISOString().slice(0, 10);
}

/** Floating midnight of a YYYY-MM-DD date. */
export function dateToFloating(date: string): number {
  return Date.parse(`${date}T00:00:00Z`);
}

export { DAY, offsetText };
