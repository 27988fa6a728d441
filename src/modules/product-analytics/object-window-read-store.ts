// Queries of the reads that turn an Object Analytics snapshot into exact answers (object-window-read.ts): the
// snapshot in sort order, the change of the hours at the window's edges, objects with late changes and their
// sums from rollups. Every function takes the workspace ID.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/tables.ts';
import {
  keyArrays,
  type ObjectFilters,
  type ObjectKey,
  oneOf,
  type RankAfter,
  type RankSort,
  rollupsIn,
  type WindowText,
} from './object-analytics-store.ts';
import type { SnapshotWindow } from './object-window-store.ts';

/** The generation of the workspace's snapshot of a window the reads use, or undefined when it has none. */
export async function snapshotState(
  db: Kysely<DB>,
  workspaceId: string,
  name: SnapshotWindow,
): Promise<{ generation: string; as_of_hour: string } | undefined> {
  return db
    .selectFrom('app_event_object_window_state')
    .select(['generation', 'as_of_hour'])
    .where('workspace_id', '=', workspaceId)
    .where('window_name', '=', name)
    .executeTakeFirst();
}

/**
 * Runs `work` (the snapshot reads of one request) on one connection where, on PostgreSQL, bitmap scans and
 * full sorts are off; restored after. A generation is made each hour, so the planner has no statistics of
 * it (autovacuum analyzes the table later, if ever) and takes it for a row or two: it then fetched the whole
 * generation to sort it (scanSnapshot) or hash it (edgeDeltas), and any of the table's three indexes looked
 * as good as another. Without those two plans, each read has one way left: the index whose order it asks
 * for, read from its start (an incremental sort orders ties by key).
 */
export async function snapshotPlans<T>(db: Kysely<DB>, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  if (!isPostgres(db)) return work(db);
  return db.connection().execute(async (connection) => {
    await sql`select set_config('enable_bitmapscan', 'off', false), set_config('enable_sort', 'off', false)`.execute(
      connection,
    );
    try {
      return await work(connection);
    } finally {
      await sql`select set_config(name, reset_val, false) from pg_settings
        where name in ('enable_bitmapscan', 'enable_sort')`.execute(connection);
    }
  });
}

export interface SnapshotRow extends ObjectKey {
  events: number;
  last_seen: string;
}

/**
 * Snapshot rows in the sort's order (value descending, then object key) after `after`: up to `limit`. Under
 * snapshotPlans on PostgreSQL: the value's index read backward from the position, ties sorted by key.
 */
export async function scanSnapshot(
  db: Kysely<DB>,
  workspaceId: string,
  /** The snapshot generation (app_event_object_window_state.generation). */
  generation: string,
  filters: ObjectFilters,
  sort: RankSort,
  after: RankAfter | undefined,
  limit: number,
): Promise<SnapshotRow[]> {
  let query = db
    .selectFrom('app_event_object_windows')
    .select(['app', 'object_type', 'object_id', 'events', 'last_seen'])
    .where('workspace_id', '=', workspaceId)
    .where('window_name', '=', generation);
  for (const column of ['app', 'object_type', 'object_id'] as const) {
    const value = filters[column];
    if (value !== undefined) query = query.where(column, '=', value);
  }
  if (after) {
    // A row-value comparison: the index (value, app, object_type, object_id) serves it on both databases;
    // the bound on the value alone lets a backward index scan start at the position.
    query = query
      .where(sort, '<=', after.value as never)
      .where((eb) =>
        eb.or([
          eb(sort, '<', after.value as never),
          eb.and([
            eb(sort, '=', after.value as never),
            eb(
              eb.refTuple('app', 'object_type', 'object_id'),
              '>',
              eb.tuple(after.app, after.object_type, after.object_id),
            ),
          ]),
        ]),
      );
  }
  const rows = await query
    .orderBy(sort, 'desc')
    .orderBy('app')
    .orderBy('object_type')
    .orderBy('object_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ ...row, events: Number(row.events) }));
}

export interface EdgeDelta extends ObjectKey {
  /** Events in the newer hours minus events in the hours that left the window. */
  delta: number;
  /** Latest last_seen in the newer hours, or null. */
  newest: string | null;
  snapshot_events: number | null;
  snapshot_last_seen: string | null;
}

/**
 * Per object with rollups in the newer hours [newer.from, newer.to) or the gone hours [gone.from, gone.to):
 * the change against the snapshot, with the object's snapshot row. Both ranges are a few hours.
 */
export async function edgeDeltas(
  db: Kysely<DB>,
  workspaceId: string,
  generation: string,
  filters: ObjectFilters,
  newer: { from: string; to: string },
  gone: { from: string; to: string },
): Promise<EdgeDelta[]> {
  const side = (range: { from: string; to: string }, sign: 1 | -1) => {
    let query = db
      .selectFrom('app_event_rollups')
      .where('workspace_id', '=', workspaceId)
      .where('hour', '>=', range.from)
      .where('hour', '<', range.to);
    for (const column of ['app', 'object_type', 'object_id'] as const) {
      const value = filters[column];
      if (value !== undefined) query = query.where(column, '=', value);
    }
    return query.select([
      'app',
      'object_type',
      'object_id',
      sign === 1 ? sql<number>`events`.as('events') : sql<number>`0 - events`.as('events'),
      sign === 1 ? sql<string | null>`last_seen`.as('last_seen') : sql<string | null>`null`.as('last_seen'),
    ]);
  };
  const grouped = db
    .selectFrom(side(newer, 1).unionAll(side(gone, -1)).as('d'))
    .select((eb) => [
      'd.app',
      'd.object_type',
      'd.object_id',
      eb.fn.sum<number | string>('d.events').as('delta'),
      eb.fn.max<string | null>('d.last_seen').as('newest'),
    ])
    .groupBy(['d.app', 'd.object_type', 'd.object_id']);
  type Row = ObjectKey & {
    delta: number | string;
    newest: string | null;
    snapshot_events: number | string | null;
    snapshot_last_seen: string | null;
  };
  const rows: Row[] = isPostgres(db)
    ? // Per touched object, the first snapshot key at or after its own, kept when it is the object's: one
      // primary-key probe, the only plan for that order under snapshotPlans. (A plain join hashed the whole
      // generation, which has no statistics and passes for a few rows, to look up a few thousand objects.)
      (
        await sql<Row>`select g.app, g.object_type, g.object_id, g.delta, g.newest,
            s.events as snapshot_events, s.last_seen as snapshot_last_seen
          from (${grouped}) g left join lateral (
            select s.app, s.object_type, s.object_id, s.events, s.last_seen from app_event_object_windows s
            where s.workspace_id = ${workspaceId} and s.window_name = ${generation}
              and (s.app, s.object_type, s.object_id) >= (g.app, g.object_type, g.object_id)
            order by s.app, s.object_type, s.object_id limit 1) s
            on s.app = g.app and s.object_type = g.object_type and s.object_id = g.object_id`.execute(db)
      ).rows
    : await db
        .selectFrom(grouped.as('g'))
        .leftJoin('app_event_object_windows as s', (join) =>
          join
            .on('s.workspace_id', '=', workspaceId)
            .on('s.window_name', '=', generation)
            .onRef('s.app', '=', 'g.app')
            .onRef('s.object_type', '=', 'g.object_type')
            .onRef('s.object_id', '=', 'g.object_id'),
        )
        .select([
          'g.app',
          'g.object_type',
          'g.object_id',
          'g.delta',
          'g.newest',
          's.events as snapshot_events',
          's.last_seen as snapshot_last_seen',
        ])
        .execute();
  return rows.map((row) => ({
    ...row,
    delta: Number(row.delta),
    snapshot_events: row.snapshot_events === null ? null : Number(row.snapshot_events),
  }));
}

/** Objects with late changes in hours [from, to) received from `receivedFrom` on (filters applied). */
export async function lateObjects(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters,
  receivedFrom: string,
  hours: { from: string; to: string },
): Promise<ObjectKey[]> {
  let query = db
    .selectFrom('app_event_late_rollups')
    .select(['app', 'object_type', 'object_id'])
    .distinct()
    .where('workspace_id', '=', workspaceId)
    .where('received_hour', '>=', receivedFrom)
    .where('hour', '>=', hours.from)
    .where('hour', '<', hours.to);
  for (const column of ['app', 'object_type', 'object_id'] as const) {
    const value = filters[column];
    if (value !== undefined) query = query.where(column, '=', value);
  }
  return query.execute();
}

/** Exact events and last_seen of the given objects over [from, to), from rollups. */
export async function objectSums(
  db: Kysely<DB>,
  workspaceId: string,
  keys: ObjectKey[],
  window: WindowText,
): Promise<SnapshotRow[]> {
  if (!keys.length) return [];
  if (isPostgres(db)) {
    // A lateral sum per object (its primary-key prefix): an OR of keys would need the bitmap scans that
    // snapshotPlans turns off.
    const { rows } = await sql<SnapshotRow>`select k.app, k.object_type, k.object_id, r.events, r.last_seen
      from ${keyArrays(keys)} cross join lateral (
        select sum(events) as events, max(last_seen) as last_seen from app_event_rollups r
        where r.workspace_id = ${workspaceId} and r.app = k.app and r.object_type = k.object_type
          and r.object_id = k.object_id and r.hour >= ${window.from} and r.hour < ${window.to}) r
      where r.events is not null`.execute(db);
    return rows.map((row) => ({ ...row, events: Number(row.events) }));
  }
  const out: SnapshotRow[] = [];
  for (let i = 0; i < keys.length; i += 100) {
    const rows = await rollupsIn(db, workspaceId, {}, window, true)
      .where((eb) => oneOf(eb, keys.slice(i, i + 100)))
      .select((eb) => [
        'app',
        'object_type',
        'object_id',
        eb.fn.sum<number | string>('events').as('events'),
        eb.fn.max<string>('last_seen').as('last_seen'),
      ])
      .groupBy(['app', 'object_type', 'object_id'])
      .execute();
    for (const row of rows) out.push({ ...row, events: Number(row.events) });
  }
  return out;
}
