// Time in BI queries: relative ranges resolved in the query's zone, and the local hour/day/week/month of a
// stored UTC instant (ISO text) as a label. PostgreSQL converts with its own zone data (AT TIME ZONE);
// SQLite has none, so the zone's offsets over the queried range are computed here (Intl) and the SQL picks
// the offset by instant: a CASE over the few DST transitions inside the range.
import { type Expression, type RawBuilder, sql } from 'kysely';
import type { Dialect } from '../../../db/database.ts';
import { DAY, fromFloating, offsetAt, toFloating, wallClock } from '../../calendar/zoned-time.ts';
import type { RelativeRange, TimeGrain } from './query-definition.ts';

export interface Range {
  from?: string;
  to?: string;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** Local midnight of the floating day `floatingDay` (a floating midnight), as a UTC instant. */
const midnight = (zone: string, floatingDay: number) => fromFloating(zone, floatingDay);

/**
 * [from, to) of a relative range in `zone` at `now`: today and yesterday are local days; last_7_days and
 * last_30_days end with today (today included); months, quarters and years are local calendar ones.
 */
export function resolveRelative(range: RelativeRange, zone: string, now: number): Required<Range> {
  const local = new Date(toFloating(zone, now));
  const y = local.getUTCFullYear();
  const m = local.getUTCMonth();
  const today = wallClock(y, m, local.getUTCDate());
  const span = (fromFloat: number, toFloat: number) => ({
    from: iso(midnight(zone, fromFloat)),
    to: iso(midnight(zone, toFloat)),
  });
  switch (range) {
    case 'today':
      return span(today, today + DAY);
    case 'yesterday':
      return span(today - DAY, today);
    case 'last_7_days':
      return span(today - 6 * DAY, today + DAY);
    case 'last_30_days':
      return span(today - 29 * DAY, today + DAY);
    case 'this_month':
      return span(wallClock(y, m, 1), wallClock(y, m + 1, 1));
    case 'last_month':
      return span(wallClock(y, m - 1, 1), wallClock(y, m, 1));
    case 'this_quarter': {
      const q = Math.floor(m / 3) * 3;
      return span(wallClock(y, q, 1), wallClock(y, q + 3, 1));
    }
    case 'this_year':
      return span(wallClock(y, 0, 1), wallClock(y + 1, 0, 1));
  }
}

interface Segment {
  /** The offset applies to instants before this one (ISO), the last segment to every later one. */
  until: string | null;
  offsetSeconds: number;
}

/** The zone's offsets over [from, to): a segment per offset, split where it changes (found by bisection). */
export function offsetSegments(zone: string, from: number, to: number): Segment[] {
  const segments: Segment[] = [];
  let current = offsetAt(zone, from);
  let cursor = from;
  while (cursor < to) {
    const next = Math.min(cursor + DAY, to);
    const offset = offsetAt(zone, next);
    if (offset !== current) {
      let lo = cursor;
      let hi = next;
      while (hi - lo > 1000) {
        const mid = Math.floor((lo + hi) / 2000) * 1000;
        if (offsetAt(zone, mid) === current) lo = mid;
        else hi = mid;
      }
      segments.push({ until: iso(hi), offsetSeconds: current / 1000 });
      current = offset;
    }
    cursor = next;
  }
  segments.push({ until: null, offsetSeconds: current / 1000 });
  return segments;
}

const SQLITE_FORMATS: Record<Exclude<TimeGrain, 'week'>, string> = {
  hour: '%Y-%m-%dT%H:00',
  day: '%Y-%m-%d',
  month: '%Y-%m',
};
const POSTGRES_FORMATS: Record<TimeGrain, string> = {
  hour: 'YYYY-MM-DD"T"HH24:00',
  day: 'YYYY-MM-DD',
  week: 'YYYY-MM-DD',
  month: 'YYYY-MM',
};

/**
 * The local bucket label of `column` (ISO UTC text): hour 2026-11-22T17:00, day 2026-11-22, week the
 * Monday 2026-11-16, month 2026-11. `range` bounds the instants the query reads (SQLite's offsets).
 */
export function bucketLabel(
  dialect: Dialect,
  column: Expression<unknown>,
  grain: TimeGrain,
  zone: string,
  range: { from: number; to: number },
): RawBuilder<string> {
  if (dialect === 'postgres') {
    // Literals, not parameters: PostgreSQL matches the GROUP BY expression to the selected one by its text.
    const local = sql`(cast(${column} as timestamptz) at time zone ${sql.lit(zone)})`;
    const truncated = grain === 'week' ? sql`date_trunc('week', ${local})` : local;
    return sql<string>`to_char(${truncated}, ${sql.lit(POSTGRES_FORMATS[grain])})`;
  }
  const segments = offsetSegments(zone, range.from, range.to);
  const modifier = (s: Segment) => sql.lit(`${s.offsetSeconds >= 0 ? '+' : ''}${s.offsetSeconds} seconds`);
  const shift =
    segments.length === 1
      ? modifier(segments[0]!)
      : sql`case ${sql.join(
          segments.map((s) =>
            s.until === null
              ? sql`else ${modifier(s)}`
              : sql`when ${column} < ${sql.lit(s.until)} then ${modifier(s)}`,
          ),
          sql` `,
        )} end`;
  if (grain === 'week') return sql<string>`date(${column}, ${shift}, '-6 days', 'weekday 1')`;
  return sql<string>`strftime(${sql.lit(SQLITE_FORMATS[grain])}, ${column}, ${shift})`;
}
