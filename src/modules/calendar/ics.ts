// iCalendar (RFC 5545) export of a calendar: one VEVENT per event with its RRULE and EXDATEs, times in the
// event's zone (TZID) and a VTIMEZONE per zone listing its UTC-offset transitions, so any client expands
// recurrences with the same local times as the service.

import { timingOf } from './calendar-store.ts';
import type { CalendarEventsTable, CalendarsTable } from './calendar-tables.ts';
import { excludedStart } from './recurrence.ts';
import { DAY, offsetAt, offsetText, toFloating } from './zoned-time.ts';

const escapeText = (text: string) =>
  text.replace(/\\/g, '\\\\').replace(/;/g, '\\;').replace(/,/g, '\\,').replace(/\r?\n/g, '\\n');

/** Folds a content line at 75 octets, never inside a UTF-8 character. */
function fold(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const char of line) {
    const size = Buffer.byteLength(char);
    if (octets + size > (out.length ? 74 : 75)) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += char;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n ');
}

const utcStamp = (instant: number) =>
  new Date(instant)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const localStamp = (floating: number) => utcStamp(floating).replace('Z', '');
const dateStamp = (date: string) => date.replace(/-/g, '');
const isUtc = (zone: string) => zone === 'UTC' || zone === 'Etc/UTC';

/** RFC 5545 utc-offset: +HHMM, or +HHMMSS for a local-mean-time offset. */
const offsetValue = (ms: number) => offsetText(ms).replace(/:/g, '');

/** Offset changes of a zone between two instants, found by daily steps and a binary search to the second. */
function transitions(
  zone: string,
  from: number,
  to: number,
): { at: number; before: number; after: number }[] {
  const found = [];
  let previous = offsetAt(zone, from);
  for (let t = from + DAY; t <= to; t += DAY) {
    const offset = offsetAt(zone, t);
    if (offset === previous) continue;
    let low = t - DAY;
    let high = t;
    while (high - low > 1000) {
      const mid = low + Math.floor((high - low) / 2000) * 1000;
      if (offsetAt(zone, mid) === previous) low = mid;
      else high = mid;
    }
    found.push({ at: high, before: previous, after: offset });
    previous = offset;
  }
  return found;
}

function vtimezone(zone: string, fromYear: number, toYear: number): string[] {
  const from = Date.UTC(fromYear, 0, 1);
  const changes = transitions(zone, from, Date.UTC(toYear + 1, 0, 1));
  const initial = offsetAt(zone, from);
  const lines = ['BEGIN:VTIMEZONE', `TZID:${zone}`];
  const firstIsDaylight = changes.length > 0 && changes[0]!.after < initial;
  lines.push(
    `BEGIN:${firstIsDaylight ? 'DAYLIGHT' : 'STANDARD'}`,
    `DTSTART:${localStamp(from + initial)}`,
    `TZOFFSETFROM:${offsetValue(initial)}`,
    `TZOFFSETTO:${offsetValue(initial)}`,
    `END:${firstIsDaylight ? 'DAYLIGHT' : 'STANDARD'}`,
  );
  for (const change of changes) {
    const kind = change.after > change.before ? 'DAYLIGHT' : 'STANDARD';
    lines.push(
      `BEGIN:${kind}`,
      // The local time at which the change happens, on the clock before it.
      `DTSTART:${localStamp(change.at + change.before)}`,
      `TZOFFSETFROM:${offsetValue(change.before)}`,
      `TZOFFSETTO:${offsetValue(change.after)}`,
      `END:${kind}`,
    );
  }
  lines.push('END:VTIMEZONE');
  return lines;
}

const STATUS = { confirmed: 'CONFIRMED', tentative: 'TENTATIVE', canceled: 'CANCELLED' } as const;
const PARTSTAT = {
  needs_action: 'NEEDS-ACTION',
  accepted: 'ACCEPTED',
  declined: 'DECLINED',
  tentative: 'TENTATIVE',
} as const;

function timeProperty(name: string, zone: string, instant: number): string {
  return isUtc(zone)
    ? `${name}:${utcStamp(instant)}`
    : `${name};TZID=${zone}:${localStamp(toFloating(zone, instant))}`;
}

function vevent(row: CalendarEventsTable, host: string): string[] {
  const timing = timingOf(row);
  const lines = [
    'BEGIN:VEVENT',
    `UID:${row.id}@${host}`,
    `DTSTAMP:${utcStamp(Date.parse(row.updated_at))}`,
    `CREATED:${utcStamp(Date.parse(row.created_at))}`,
    `LAST-MODIFIED:${utcStamp(Date.parse(row.updated_at))}`,
  ];
  if (timing.allDay) {
    const after = new Date(Date.parse(`${timing.endDate}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    lines.push(`DTSTART;VALUE=DATE:${dateStamp(timing.startDate!)}`, `DTEND;VALUE=DATE:${dateStamp(after)}`);
  } else {
    lines.push(
      timeProperty('DTSTART', row.timezone, timing.startsAt),
      timeProperty('DTEND', row.timezone, timing.endsAt),
    );
  }
  if (row.recurrence) lines.push(`RRULE:${row.recurrence}`);
  for (const date of timing.excludedDates) {
    if (timing.allDay) lines.push(`EXDATE;VALUE=DATE:${dateStamp(date)}`);
    else if (isUtc(row.timezone)) lines.push(`EXDATE:${utcStamp(excludedStart(timing, date))}`);
    else lines.push(`EXDATE;TZID=${row.timezone}:${localStamp(excludedStart(timing, date))}`);
  }
  lines.push(`SUMMARY:${escapeText(row.title)}`);
  if (row.description) lines.push(`DESCRIPTION:${escapeText(row.description)}`);
  if (row.location) lines.push(`LOCATION:${escapeText(row.location)}`);
  lines.push(`STATUS:${STATUS[row.status]}`);
  for (const attendee of JSON.parse(row.attendees) as {
    email: string | null;
    name: string | null;
    response: keyof typeof PARTSTAT;
  }[]) {
    if (!attendee.email) continue;
    const cn = attendee.name ? `;CN="${attendee.name.replace(/["\r\n]/g, '')}"` : '';
    lines.push(`ATTENDEE${cn};PARTSTAT=${PARTSTAT[attendee.response]}:mailto:${attendee.email}`);
  }
  lines.push('END:VEVENT');
  return lines;
}

/** The whole VCALENDAR text, CRLF line endings, folded lines. */
export function buildIcs(
  calendar: CalendarsTable,
  events: CalendarEventsTable[],
  host: string,
  now: string,
): string {
  const zones = new Set(
    events.filter((e) => !Number(e.all_day) && !isUtc(e.timezone)).map((e) => e.timezone),
  );
  const years = events.map((e) => new Date(e.starts_at).getUTCFullYear());
  const nowYear = new Date(now).getUTCFullYear();
  const fromYear = Math.min(nowYear, ...years) - 1;
  // Offsets are listed ten years ahead of now (or of the latest start); clients reuse the last ones beyond.
  const toYear = Math.min(Math.max(nowYear, ...years) + 10, fromYear + 60);
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//wos//Workspace Operations Service//EN',
    'CALSCALE:GREGORIAN',
    'METHOD:PUBLISH',
    `X-WR-CALNAME:${escapeText(calendar.name)}`,
    `X-WR-TIMEZONE:${calendar.timezone}`,
    ...(calendar.description ? [`X-WR-CALDESC:${escapeText(calendar.description)}`] : []),
    ...[...zones].sort().flatMap((zone) => vtimezone(zone, fromYear, toYear)),
    ...events.flatMap((event) => vevent(event, host)),
    'END:VCALENDAR',
  ];
  return `${lines.map(fold).join('\r\n')}\r\n`;
}
