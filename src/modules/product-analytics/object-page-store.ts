// Queries that enrich the objects of a page (the grouped view's, or one drill-down): events per event name
// with first and last seen (unique actors: object-actors-store.ts). Whole UTC days of the window read daily rollups and sketches,
// only the hours at its edges read hourly rollups. Every function takes the workspace ID.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/tables.ts';
import {
  keyArrays,
  objectKeyText as keyOf,
  noIndex,
  type ObjectKey,
  type WindowText,
} from './object-analytics-store.ts';

const DAY = 86_400_000;

/**
 * The window's whole UTC days (inclusive, YYYY-MM-DD) and its partial days' hour ranges (at most two: the
 * first day from the window's start, the last day up to its end).
 */
export function windowParts(window: WindowText) {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const firstDay = Math.ceil(from / DAY) * DAY;
  const afterDays = Math.floor(to / DAY) * DAY;
  const text = (ms: number) => new Date(ms).toISOString();
  const range = (start: number, end: number) => ({
    day: text(start).slice(0, 10),
    from: text(start),
    to: text(end),
  });
  if (firstDay >= afterDays) {
    // No whole day: one or two partial days.
    const cut = Math.min(firstDay, to);
    return { hours: cut < to ? [range(from, cut), range(cut, to)] : [range(from, to)] };
  }
  const hours = [
    ...(from < firstDay ? [range(from, firstDay)] : []),
    ...(afterDays < to ? [range(afterDays, to)] : []),
  ];
  return { days: { from: text(firstDay).slice(0, 10), to: text(afterDays - DAY).slice(0, 10) }, hours };
}

export interface NameCount {
  event_name: string;
  events: number;
  first_seen: string;
  last_seen: string;
}

type CountRow = ObjectKey & NameCount & { part: string };

/**
 * Each object's events per event name in the window (optionally one name), most frequent first. Whole days
 * come from the daily rollups; a partial day's hours from the hourly ones, one primary-key range per event
 * name the object had that day (the hourly key ends with event_name, hour), so a busy object reads ~25 hours
 * of rows and ~30 daily ones per name instead of 720 hourly ones.
 */
export async function countsByEventName(
  db: Kysely<DB>,
  workspaceId: string,
  keys: ObjectKey[],
  eventName: string | undefined,
  window: WindowText,
): Promise<Map<string, NameCount[]>> {
  const out = new Map<string, NameCount[]>();
  if (!keys.length) return out;
  const parts = windowParts(window);
  // One pass over the days the window touches: whole days summed, the partial days' event names (whose
  // hours are looked up by name next) apart.
  const partial = parts.hours.map((range) => range.day);
  const first = await dailyCounts(db, workspaceId, keys, eventName, window, partial);
  // The window's last day when it starts at midnight: a name whose events of that day all came before the
  // window's end (the usual case: only events sent ahead of the clock come after) counts its daily row.
  const last = parts.hours.find((range) => range.to === window.to && range.from.endsWith('T00:00:00.000Z'));
  const whole = new Set(
    first.filter((row) => row.part === 'days' || (row.part === last?.day && row.last_seen < window.to)),
  );
  const names = new Map<string, string[]>();
  for (const row of first) {
    if (whole.has(row)) continue;
    const key = `${keyOf(row)}@${row.part}`;
    names.set(key, [...(names.get(key) ?? []), row.event_name]);
  }
  const ranges = keys.flatMap((key) =>
    parts.hours.flatMap((range) => {
      const known = names.get(`${keyOf(key)}@${range.day}`);
      return known ? [{ key, names: known, from: range.from, to: range.to }] : [];
    }),
  );
  const rows = [...whole, ...(await hourlyCounts(db, workspaceId, ranges))];
  const byName = new Map<string, Map<string, NameCount>>();
  for (const row of rows) {
    const names = byName.get(keyOf(row)) ?? new Map<string, NameCount>();
    byName.set(keyOf(row), names);
    const seen = names.get(row.event_name);
    const events = Number(row.events);
    if (!seen) {
      names.set(row.event_name, {
        event_name: row.event_name,
        events,
        first_seen: row.first_seen,
        last_seen: row.last_seen,
      });
      continue;
    }
    seen.events += events;
    if (row.first_seen < seen.first_seen) seen.first_seen = row.first_seen;
    if (row.last_seen > seen.last_seen) seen.last_seen = row.last_seen;
  }
  for (const [key, names] of byName) {
    // Most frequent first, then by name: a stable order for equal counts.
    const counts = [...names.values()].sort(
      (a, b) => b.events - a.events || (a.event_name < b.event_name ? -1 : 1),
    );
    out.set(key, counts);
  }
  return out;
}

const sums = (eb: { fn: any }, part: RawBuilder<string>) => [
  'app' as const,
  'object_type' as const,
  'object_id' as const,
  'event_name' as const,
  eb.fn.sum('events').as('events'),
  eb.fn.min('first_seen').as('first_seen'),
  eb.fn.max('last_seen').as('last_seen'),
  part.as('part'),
];
const GROUP = ['app', 'object_type', 'object_id', 'event_name', 'part'] as const;

/**
 * Each object's daily rollups over the days the window touches, per event name: the whole days summed
 * (part 'days'), each partial day (its date as part) apart.
 */
async function dailyCounts(
  db: Kysely<DB>,
  workspaceId: string,
  keys: ObjectKey[],
  eventName: string | undefined,
  window: WindowText,
  partial: string[],
): Promise<CountRow[]> {
  if (isPostgres(db)) {
    // One lateral read per object: the statement's shape (and its planning) does not grow with the page.
    // Grouped by event name alone, each part an aggregate with a filter: the key's (event_name, day) order
    // feeds the grouping, with no sort.
    const parts = [
      { part: 'days', when: partial.length ? sql`day not in (${sql.join(partial)})` : sql`true` },
      // A window within one day can name its day twice (an empty range, then the hours): one part each.
      ...[...new Set(partial)].map((day) => ({ part: day, when: sql`day = ${day}` })),
    ];
    const name = eventName === undefined ? sql`` : sql`and d.event_name = ${eventName}`;
    const { rows } = await sql<ObjectKey & { event_name: string } & Record<string, string | null>>`select
        k.app, k.object_type, k.object_id, d.*
      from ${keyArrays(keys)} cross join lateral (
        select event_name, ${sql.join(
          parts.map(
            ({ when }, i) => sql`sum(events) filter (where ${when}) as ${sql.ref(`events_${i}`)},
              min(first_seen) filter (where ${when}) as ${sql.ref(`first_${i}`)},
              max(last_seen) filter (where ${when}) as ${sql.ref(`last_${i}`)}`,
          ),
        )}
        from app_event_day_rollups d
        where d.workspace_id = ${workspaceId} and d.app = k.app and d.object_type = k.object_type
          and d.object_id = k.object_id and d.day >= ${window.fromDay} and d.day <= ${window.toDay} ${name}
        group by event_name) d`.execute(db);
    return rows.flatMap((row) =>
      parts.flatMap(({ part }, i) =>
        row[`events_${i}`] === null
          ? []
          : [
              {
                app: row.app,
                object_type: row.object_type,
                object_id: row.object_id,
                event_name: row.event_name,
                part,
                events: Number(row[`events_${i}`]),
                first_seen: row[`first_${i}`]!,
                last_seen: row[`last_${i}`]!,
              },
            ],
      ),
    );
  }
  const part = partial.length
    ? sql<string>`case ${sql.join(
        partial.map((day) => sql`when day = ${day} then ${sql.lit(day)}`),
        sql` `,
      )} else 'days' end`
    : sql.lit('days');
  return (await unionAll(
    keys.map((key) =>
      ofObject(db, 'app_event_day_rollups', workspaceId, key, eventName)
        .where(noIndex('day'), '>=', window.fromDay)
        .where(noIndex('day'), '<=', window.toDay)
        .select((eb) => sums(eb, part))
        .groupBy([...GROUP]),
    ),
  )) as CountRow[];
}

/**
 * Sums of hourly rollups per object and event name over hour ranges (part 'hours'), one primary-key range
 * per event name (the hourly key ends with event_name, hour).
 */
async function hourlyCounts(
  db: Kysely<DB>,
  workspaceId: string,
  ranges: { key: ObjectKey; names: string[]; from: string; to: string }[],
): Promise<CountRow[]> {
  if (!ranges.length) return [];
  if (isPostgres(db)) {
    const each = ranges.flatMap((range) => range.names.map((name) => ({ ...range, name })));
    const column = (pick: (row: (typeof each)[number]) => string) => sql`${each.map(pick)}::text[]`;
    const { rows } = await sql<CountRow>`select k.app, k.object_type, k.object_id, k.event_name,
        r.events, r.first_seen, r.last_seen, 'hours' as part
      from unnest(${column((r) => r.key.app)}, ${column((r) => r.key.object_type)},
        ${column((r) => r.key.object_id)}, ${column((r) => r.name)}, ${column((r) => r.from)},
        ${column((r) => r.to)}) as k(app, object_type, object_id, event_name, hour_from, hour_to)
      cross join lateral (
        select sum(events) as events, min(first_seen) as first_seen, max(last_seen) as last_seen
        from app_event_rollups r
        where r.workspace_id = ${workspaceId} and r.app = k.app and r.object_type = k.object_type
          and r.object_id = k.object_id and r.event_name = k.event_name and r.hour >= k.hour_from
          and r.hour < k.hour_to) r
      where r.events is not null`.execute(db);
    return rows;
  }
  return (await unionAll(
    ranges.map((range) =>
      // No expression around hour here: event_name IN and the hour range both use the primary key.
      ofObject(db, 'app_event_rollups', workspaceId, range.key, undefined)
        .where('event_name', 'in', range.names)
        .where(sql.ref<string>('hour'), '>=', range.from)
        .where(sql.ref<string>('hour'), '<', range.to)
        .select((eb) => sums(eb, sql.lit('hours')))
        .groupBy([...GROUP]),
    ),
  )) as CountRow[];
}

/** One object's rows of a rollup table (optionally one event name), by its primary key's prefix. */
function ofObject<T extends 'app_event_day_rollups' | 'app_event_rollups'>(
  db: Kysely<DB>,
  table: T,
  workspaceId: string,
  key: ObjectKey,
  eventName: string | undefined,
) {
  let query = db
    .selectFrom(table as 'app_event_day_rollups')
    .where('workspace_id', '=', workspaceId)
    .where('app', '=', key.app)
    .where('object_type', '=', key.object_type)
    .where('object_id', '=', key.object_id);
  if (eventName !== undefined) query = query.where('event_name', '=', eventName);
  return query;
}

/** The rows of every branch (one query; none without branches). */
async function unionAll(branches: { unionAll: (other: never) => any; execute: () => Promise<unknown[]> }[]) {
  if (!branches.length) return [];
  return (
    branches.slice(1).reduce((all, branch) => all.unionAll(branch as never), branches[0]!) as {
      execute: () => Promise<unknown[]>;
    }
  ).execute();
}
