// Queries that enrich the objects of a page (the grouped view's, or one drill-down): events per event name
// with first and last seen, and unique actors. Whole UTC days of the window read daily rollups and sketches,
// only the hours at its edges read hourly rollups. Every function takes the workspace ID.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';
import { type ActorSketch, decodeSketch, emptySketch, estimate, mergeSketch } from './actor-sketch.ts';
import {
  objectKeyText as keyOf,
  noIndex,
  type ObjectKey,
  type WindowText,
} from './object-analytics-store.ts';

const DAY = 86_400_000;

/** The window's whole UTC days (inclusive, YYYY-MM-DD) and the hour ranges before and after them. */
export function windowParts(window: WindowText) {
  const from = Date.parse(window.from);
  const to = Date.parse(window.to);
  const firstDay = Math.ceil(from / DAY) * DAY;
  const afterDays = Math.floor(to / DAY) * DAY;
  const text = (ms: number) => new Date(ms).toISOString();
  if (firstDay >= afterDays) return { hours: [{ from: window.from, to: window.to }] };
  const hours = [
    ...(from < firstDay ? [{ from: window.from, to: text(firstDay) }] : []),
    ...(afterDays < to ? [{ from: text(afterDays), to: window.to }] : []),
  ];
  return { days: { from: text(firstDay).slice(0, 10), to: text(afterDays - DAY).slice(0, 10) }, hours };
}

export interface NameCount {
  event_name: string;
  events: number;
  first_seen: string;
  last_seen: string;
}

/** Each object's events per event name in the window (optionally one name), most frequent first. */
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
  const columns = (eb: { fn: any }) => [
    'app' as const,
    'object_type' as const,
    'object_id' as const,
    'event_name' as const,
    eb.fn.sum('events').as('events'),
    eb.fn.min('first_seen').as('first_seen'),
    eb.fn.max('last_seen').as('last_seen'),
  ];
  // One branch per object and part: each reads its own rows through the primary key.
  const branches = keys.flatMap((key) => {
    const hourly = parts.hours.map((range) => {
      let query = db
        .selectFrom('app_event_rollups')
        .where('workspace_id', '=', workspaceId)
        .where('app', '=', key.app)
        .where('object_type', '=', key.object_type)
        .where('object_id', '=', key.object_id)
        .where(noIndex('hour'), '>=', range.from)
        .where(noIndex('hour'), '<', range.to);
      if (eventName !== undefined) query = query.where('event_name', '=', eventName);
      return query.select(columns).groupBy(['app', 'object_type', 'object_id', 'event_name']);
    });
    if (!parts.days) return hourly;
    let daily = db
      .selectFrom('app_event_day_rollups')
      .where('workspace_id', '=', workspaceId)
      .where('app', '=', key.app)
      .where('object_type', '=', key.object_type)
      .where('object_id', '=', key.object_id)
      .where(noIndex('day'), '>=', parts.days.from)
      .where(noIndex('day'), '<=', parts.days.to);
    if (eventName !== undefined) daily = daily.where('event_name', '=', eventName);
    return [...hourly, daily.select(columns).groupBy(['app', 'object_type', 'object_id', 'event_name'])];
  });
  const rows = (await branches
    .slice(1)
    .reduce((all, branch) => all.unionAll(branch as never), branches[0]!)
    .execute()) as (ObjectKey & NameCount)[];
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

/**
 * Distinct actors of each object over the UTC days the window touches: the union of its daily sketches
 * (exact up to 512 actors a day, HyperLogLog beyond; actor-sketch.ts).
 */
export async function uniqueActors(
  db: Kysely<DB>,
  workspaceId: string,
  keys: ObjectKey[],
  window: WindowText,
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  if (!keys.length) return out;
  const branches = keys.map((key) =>
    db
      .selectFrom('app_event_actor_sketches')
      .select(['app', 'object_type', 'object_id', 'sketch'])
      .where('workspace_id', '=', workspaceId)
      .where('app', '=', key.app)
      .where('object_type', '=', key.object_type)
      .where('object_id', '=', key.object_id)
      .where(noIndex('day'), '>=', window.fromDay)
      .where(noIndex('day'), '<=', window.toDay),
  );
  const rows = await branches
    .slice(1)
    .reduce((all, branch) => all.unionAll(branch), branches[0]!)
    .execute();
  const unions = new Map<string, ActorSketch>();
  for (const row of rows) {
    const key = keyOf(row);
    unions.set(key, mergeSketch(unions.get(key) ?? emptySketch(), decodeSketch(row.sketch)));
  }
  for (const [key, sketch] of unions) out.set(key, estimate(sketch));
  return out;
}
