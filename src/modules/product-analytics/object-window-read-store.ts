// Queries of the reads that turn an Object Analytics snapshot into exact answers (object-window-read.ts): the
// snapshot in sort order, the change of the hours at the window's edges, objects with late changes and their
// sums from rollups. Every function takes the workspace ID.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/tables.ts';
import {
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

export interface SnapshotRow extends ObjectKey {
  events: number;
  last_seen: string;
}

/** Snapshot rows in the sort's order (value descending, then object key) after `after`: up to `limit`. */
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
  const page = (on: Kysely<DB>) => {
    let query = on
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
    return query
      .orderBy(sort, 'desc')
      .orderBy('app')
      .orderBy('object_type')
      .orderBy('object_id')
      .limit(limit)
      .execute();
  };
  const rows = isPostgres(db)
    ? // A generation made this hour has no statistics yet (autovacuum analyzes it later, if ever), so the
      // planner takes it for a few rows and fetches all of them by bitmap to sort them: 100,000 rows for a
      // page. Without bitmap scans it walks the value's index backward, sorting only ties.
      await db.connection().execute(async (connection) => {
        await sql`set enable_bitmapscan = off`.execute(connection);
        try {
          return await page(connection);
        } finally {
          await sql`reset enable_bitmapscan`.execute(connection);
        }
      })
    : await page(db);
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
  const columns = [
    'g.app',
    'g.object_type',
    'g.object_id',
    'g.delta',
    'g.newest',
    's.events as snapshot_events',
    's.last_seen as snapshot_last_seen',
  ] as const;
  // PostgreSQL has no statistics of a generation made this hour and takes it for a few rows: a plain join
  // hashed the whole generation (100,000 rows) to look up a few thousand objects. A lateral lookup with a
  // limit cannot be turned into that join: one primary-key probe per touched object.
  const rows = isPostgres(db)
    ? await db
        .selectFrom(grouped.as('g'))
        .leftJoinLateral(
          (eb) =>
            eb
              .selectFrom('app_event_object_windows as s')
              .select(['s.events', 's.last_seen'])
              .where('s.workspace_id', '=', workspaceId)
              .where('s.window_name', '=', generation)
              .whereRef('s.app', '=', 'g.app')
              .whereRef('s.object_type', '=', 'g.object_type')
              .whereRef('s.object_id', '=', 'g.object_id')
              .limit(1)
              .as('s'),
          (join) => join.onTrue(),
        )
        .select(columns)
        .execute()
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
        .select(columns)
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
