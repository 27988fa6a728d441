// Queries of the Object Analytics reads. Without a snapshot (object-window-read.ts) the grouped view ranks
// objects with one grouped query over the window's hourly rollups; object-page-store.ts then enriches only
// the page's rows (top events, unique actors).
// Every function takes the workspace ID; windows are ISO 8601 UTC text (app-event-window.ts).
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { DB } from '../../db/tables.ts';

export interface ObjectFilters {
  app?: string;
  object_type?: string;
  object_id?: string;
  event_name?: string;
}

export interface WindowText {
  from: string;
  to: string;
  fromDay: string;
  toDay: string;
}

export interface ObjectKey {
  app: string;
  object_type: string;
  object_id: string;
}

type Rollups = ExpressionBuilder<DB, 'app_event_rollups'>;

/**
 * A time column that no index serves. Without table statistics SQLite prefers the (workspace_id, hour) index
 * to the primary key's (workspace_id, app, object_type, object_id) prefix and scans every object's rows of the
 * window; reads of known objects compare the time through this so the primary key is used.
 */

export const noIndex = (column: 'hour' | 'day') => sql<string>`(${sql.ref(column)} || '')`;

/**
 * Rollups of the window with the filters. `objects`: the query names whole object keys (one object, or a
 * page's), read through the primary key.
 */
export function rollupsIn(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters,
  window: WindowText,
  objects = false,
) {
  const hour = objects ? noIndex('hour') : sql.ref<string>('hour');
  let query = db
    .selectFrom('app_event_rollups')
    .where('workspace_id', '=', workspaceId)
    .where(hour, '>=', window.from)
    .where(hour, '<', window.to);
  for (const column of ['app', 'object_type', 'object_id', 'event_name'] as const) {
    const value = filters[column];
    if (value !== undefined) query = query.where(column, '=', value);
  }
  return query;
}

/** (app, object_type, object_id) strictly after the key, ascending, as OR of prefixes. */
function keyAfter(eb: Rollups, key: ObjectKey) {
  return eb.or([
    eb('app', '>', key.app),
    eb.and([eb('app', '=', key.app), eb('object_type', '>', key.object_type)]),
    eb.and([
      eb('app', '=', key.app),
      eb('object_type', '=', key.object_type),
      eb('object_id', '>', key.object_id),
    ]),
  ]);
}

export function oneOf(eb: ExpressionBuilder<any, any>, keys: ObjectKey[]) {
  return eb.or(
    keys.map((key) =>
      eb.and([
        eb('app', '=', key.app),
        eb('object_type', '=', key.object_type),
        eb('object_id', '=', key.object_id),
      ]),
    ),
  );
}

export type RankSort = 'events' | 'last_seen';

/** The last row of the previous page: its sort value (events, or last_seen) and its object key. */
export interface RankAfter extends ObjectKey {
  value: number | string;
}

export interface RankedObject extends ObjectKey {
  events: number;
  first_seen: string;
  last_seen: string;
}

/**
 * One page of objects ranked by events or last_seen (descending, then by object key): one grouped query,
 * the keyset in HAVING. Returns up to `limit` rows.
 */
export async function rankObjects(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters,
  window: WindowText,
  sort: RankSort,
  after: RankAfter | undefined,
  limit: number,
): Promise<RankedObject[]> {
  const rank = sort === 'events' ? sql`sum(events)` : sql`max(last_seen)`;
  let query = rollupsIn(db, workspaceId, filters, window)
    .select((eb) => [
      'app',
      'object_type',
      'object_id',
      eb.fn.sum<number | string>('events').as('events'),
      eb.fn.min<string>('first_seen').as('first_seen'),
      eb.fn.max<string>('last_seen').as('last_seen'),
    ])
    .groupBy(['app', 'object_type', 'object_id']);
  if (after) {
    query = query.having((eb) =>
      eb.or([eb(rank, '<', after.value), eb.and([eb(rank, '=', after.value), keyAfter(eb, after)])]),
    );
  }
  const rows = await query
    .orderBy(rank, 'desc')
    .orderBy('app')
    .orderBy('object_type')
    .orderBy('object_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, events: Number(row.events) }));
}

/**
 * PostgreSQL: object keys as a relation k(app, object_type, object_id) of three text arrays (one parameter
 * each, whatever their number), for a lateral read per object instead of a UNION ALL branch per object.
 */
export const keyArrays = (keys: ObjectKey[]) =>
  sql`unnest(${keys.map((k) => k.app)}::text[], ${keys.map((k) => k.object_type)}::text[],
    ${keys.map((k) => k.object_id)}::text[]) as k(app, object_type, object_id)`;

const keyOf = (row: ObjectKey) => JSON.stringify([row.app, row.object_type, row.object_id]);

export { keyOf as objectKeyText };

/** Events per UTC hour of the window (hours without events absent). */
export async function hourlyCounts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters,
  window: WindowText,
): Promise<{ hour: string; events: number }[]> {
  if (filters.object_type === undefined && filters.object_id === undefined) {
    // No object filter: the per-hour totals of each app and event name hold the same counts in fewer rows.
    let totals = db
      .selectFrom('app_event_hour_totals')
      .where('workspace_id', '=', workspaceId)
      .where('hour', '>=', window.from)
      .where('hour', '<', window.to);
    if (filters.app !== undefined) totals = totals.where('app', '=', filters.app);
    if (filters.event_name !== undefined) totals = totals.where('event_name', '=', filters.event_name);
    const rows = await totals
      .select((eb) => ['hour', eb.fn.sum<number | string>('events').as('events')])
      .groupBy('hour')
      .execute();
    return rows.map((row) => ({ hour: row.hour, events: Number(row.events) }));
  }
  const rows = await rollupsIn(db, workspaceId, filters, window)
    .select((eb) => ['hour', eb.fn.sum<number | string>('events').as('events')])
    .groupBy('hour')
    .execute();
  return rows.map((row) => ({ hour: row.hour, events: Number(row.events) }));
}

/** Whether the object has any rollup, in any window (rollups are kept 2 years). */
export async function objectIsKnown(db: Kysely<DB>, workspaceId: string, key: ObjectKey): Promise<boolean> {
  const row = await db
    .selectFrom('app_event_rollups')
    .select('hour')
    .where('workspace_id', '=', workspaceId)
    .where('app', '=', key.app)
    .where('object_type', '=', key.object_type)
    .where('object_id', '=', key.object_id)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

export interface EventAfter {
  occurred_at: string;
  id: string;
}

/** One object's raw events in the window, newest first, keyset on (occurred_at, id); up to `limit`. */
export async function objectEvents(
  db: Kysely<DB>,
  workspaceId: string,
  key: ObjectKey,
  eventName: string | undefined,
  window: WindowText,
  after: EventAfter | undefined,
  limit: number,
) {
  let query = db
    .selectFrom('app_events')
    .select([
      'id',
      'event_id',
      'event_name',
      'occurred_at',
      'received_at',
      'properties',
      'user_id',
      'anonymous_id',
      'session_id',
      'page_url',
      'referrer',
      'locale',
      'timezone',
      'warnings',
    ])
    .where('workspace_id', '=', workspaceId)
    .where('app', '=', key.app)
    .where('object_type', '=', key.object_type)
    .where('object_id', '=', key.object_id)
    .where('occurred_at', '>=', window.from)
    .where('occurred_at', '<', window.to);
  if (eventName !== undefined) query = query.where('event_name', '=', eventName);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('occurred_at', '<', after.occurred_at),
        eb.and([eb('occurred_at', '=', after.occurred_at), eb('id', '<', after.id)]),
      ]),
    );
  }
  const rows = await query.orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
  return rows.map((row) => ({
    ...row,
    properties: JSON.parse(row.properties) as unknown,
    warnings:
      row.warnings === null ? null : (JSON.parse(row.warnings) as { field: string; message: string }[]),
  }));
}
