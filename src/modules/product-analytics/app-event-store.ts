// Queries of application events: the ingest write (event_id ledger, raw rows, hourly and daily rollups,
// daily actor sketches, site counters) and retention. Every function takes the workspace ID, or says it is a system
// sweep across workspaces.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import { reusableRows } from '../../db/reusable-query.ts';
import type { DB } from '../../db/tables.ts';
import { addHashes, decodeSketch, emptySketch, encodeSketch, mergeSketch } from './actor-sketch.ts';
import {
  APP_EVENT_COLUMNS,
  type AppEventActorSketchesTable,
  type AppEventDayRollupsTable,
  type AppEventHourTotalsTable,
  type AppEventIdsTable,
  type AppEventRollupsTable,
  type AppEventsTable,
  type ValidationMode,
} from './analytics-tables.ts';

// Rows per statement: 22 columns x 500 stays under SQLite's and PostgreSQL's bound-parameter limits.
const CHUNK = 500;

/**
 * Rows sorted by the given key columns. Concurrent batches upsert the same rollup, total and actor rows:
 * taking their row locks in one order everywhere keeps PostgreSQL from deadlocking between them.
 */
function inKeyOrder<T>(rows: T[], key: (row: T) => string[]): T[] {
  const keyed = rows.map((row) => ({ row, key: key(row) }));
  keyed.sort((a, b) => {
    for (let i = 0; i < a.key.length; i++) {
      if (a.key[i]! !== b.key[i]!) return a.key[i]! < b.key[i]! ? -1 : 1;
    }
    return 0;
  });
  return keyed.map(({ row }) => row);
}

/**
 * The rows in order, as statements of CHUNK rows and then of powers of two (256, 128, ... 1) for the rest:
 * each statement is compiled and prepared once per row count, so a handful of counts serve every batch
 * instead of one text per remainder (up to 500 of each statement, cached and prepared on every connection).
 */
export function chunks<T>(rows: T[]): T[][] {
  const out: T[][] = [];
  let start = 0;
  while (start < rows.length) {
    const left = rows.length - start;
    const size = left >= CHUNK ? CHUNK : 2 ** Math.floor(Math.log2(left));
    out.push(rows.slice(start, start + size));
    start += size;
  }
  return out;
}

/**
 * Records event_ids in the workspace's ledger and returns those that were new. Concurrent batches
 * sharing an ID race on the primary key: exactly one inserts it, the other sees a duplicate.
 */
export async function claimEventIds(
  db: Kysely<DB>,
  workspaceId: string,
  ids: { event_id: string; occurred_at: string }[],
): Promise<Set<string>> {
  const fresh = new Set<string>();
  for (const part of chunks(inKeyOrder(ids, (id) => [id.event_id]))) {
    const rows = await claimIds(
      db,
      part.map((id) => ({ workspace_id: workspaceId, ...id })),
    );
    for (const row of rows) fresh.add(row.event_id);
  }
  return fresh;
}

// The ingest statements run for every batch: each is compiled once per row count (reusableRows).
const claimIds = reusableRows<AppEventIdsTable, { event_id: string }>(
  ['workspace_id', 'event_id', 'occurred_at'],
  (db, rows) =>
    db
      .insertInto('app_event_ids')
      .values(rows)
      .onConflict((oc) => oc.columns(['workspace_id', 'event_id']).doNothing())
      .returning('event_id'),
);

const insertEvents = reusableRows<AppEventsTable>(APP_EVENT_COLUMNS, (db, rows) =>
  db.insertInto('app_events').values(rows),
);

export async function insertAppEvents(db: Kysely<DB>, rows: AppEventsTable[]): Promise<void> {
  for (const part of chunks(rows)) await insertEvents(db, part);
}

const ROLLUP_COUNTS = ['events', 'first_seen', 'last_seen'] as const;
const OBJECT_KEY = ['workspace_id', 'app', 'object_type', 'object_id', 'event_name'] as const;

/** An upsert into a rollup table: events add up, first_seen keeps the earlier, last_seen the later. */
function rollupUpsert<T extends AppEventRollupsTable | AppEventDayRollupsTable>(
  table: 'app_event_rollups' | 'app_event_day_rollups',
  time: 'hour' | 'day',
) {
  const current = (column: string) => sql.ref(`${table}.${column}`);
  return reusableRows<T>([...OBJECT_KEY, time, ...ROLLUP_COUNTS] as (keyof T & string)[], (db, rows) =>
    db
      .insertInto(table as 'app_event_rollups')
      .values(rows as unknown as AppEventRollupsTable[])
      .onConflict((oc) =>
        oc.columns([...OBJECT_KEY, time as 'hour']).doUpdateSet({
          events: sql`${current('events')} + excluded.events`,
          first_seen: sql`case when excluded.first_seen < ${current('first_seen')}
            then excluded.first_seen else ${current('first_seen')} end`,
          last_seen: sql`case when excluded.last_seen > ${current('last_seen')}
            then excluded.last_seen else ${current('last_seen')} end`,
        }),
      ),
  );
}

const upsertHourRollups = rollupUpsert<AppEventRollupsTable>('app_event_rollups', 'hour');
const upsertDayRollups = rollupUpsert<AppEventDayRollupsTable>('app_event_day_rollups', 'day');

/**
 * Waits until no other transaction of this workspace is writing its aggregates (PostgreSQL; SQLite has one
 * writer). Concurrent batches all update the same hot rows (the current hour of the busiest objects, the
 * hour totals); without this they take some of those row locks, then wait for another batch's commit while
 * holding them, and the waits chain. Queued here, a batch waits once, holding no aggregate row, and then
 * runs its upserts without waiting. The lock ends with the transaction.
 */
export async function awaitAggregateTurn(db: Kysely<DB>, workspaceId: string): Promise<void> {
  if (!isPostgres(db)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`app-event-aggregates:${workspaceId}`}, 0))`.execute(
    db,
  );
}

/** Adds summed rows to a rollup table (hourly or daily), one upsert per group, in key order. */
async function addToRollups<T extends AppEventRollupsTable | AppEventDayRollupsTable>(
  db: Kysely<DB>,
  upsert: (db: Kysely<DB>, rows: readonly T[]) => Promise<unknown>,
  rows: T[],
): Promise<void> {
  const ordered = inKeyOrder(rows, (r) => [
    r.app,
    r.object_type,
    r.object_id,
    r.event_name,
    'hour' in r ? r.hour : r.day,
  ]);
  for (const part of chunks(ordered)) await upsert(db, part);
}

/** Adds a batch's hourly rollups (already summed per group in memory). */
export const addRollups = (db: Kysely<DB>, rows: AppEventRollupsTable[]) =>
  addToRollups(db, upsertHourRollups, rows);

/** Adds a batch's daily rollups (summed in memory from its hourly ones). */
export const addDayRollups = (db: Kysely<DB>, rows: AppEventDayRollupsTable[]) =>
  addToRollups(db, upsertDayRollups, rows);

const upsertHourTotals = reusableRows<AppEventHourTotalsTable>(
  ['workspace_id', 'hour', 'app', 'event_name', 'events'],
  (db, rows) =>
    db
      .insertInto('app_event_hour_totals')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'hour', 'app', 'event_name']).doUpdateSet({
          events: sql`app_event_hour_totals.events + excluded.events`,
        }),
      ),
);

/** Adds a batch's events per hour, app and event name (summed in memory): one upsert per group. */
export async function addHourTotals(db: Kysely<DB>, rows: AppEventHourTotalsTable[]): Promise<void> {
  for (const part of chunks(inKeyOrder(rows, (r) => [r.hour, r.app, r.event_name]))) {
    await upsertHourTotals(db, part);
  }
}

/** The actors a batch saw of one object on one UTC day, as their hashes (actor-sketch.ts). */
export interface ActorDay {
  app: string;
  object_type: string;
  object_id: string;
  day: string;
  hashes: number[];
}

/**
 * Merges a batch's actors into the daily sketches. A first upsert, in key order, inserts the batch's own
 * sketch or locks the existing row unchanged and returns it (a sketch merged with itself is itself, so both
 * cases merge the same way); a second writes back the rows the merge grew. Locks are taken in one order, so
 * concurrent batches on PostgreSQL wait for each other instead of deadlocking.
 */
export async function addActorSketches(db: Kysely<DB>, workspaceId: string, days: ActorDay[]): Promise<void> {
  const ordered = inKeyOrder(days, (d) => [d.app, d.object_type, d.object_id, d.day]);
  const keyText = (r: { app: string; object_type: string; object_id: string; day: string }) =>
    [r.app, r.object_type, r.object_id, r.day].join('\u0000');
  for (const part of chunks(ordered)) {
    const own = new Map(part.map((d) => [keyText(d), addHashes(emptySketch(), d.hashes)]));
    const current = await lockSketches(
      db,
      part.map((d) => ({
        workspace_id: workspaceId,
        ...keyOf(d),
        sketch: encodeSketch(own.get(keyText(d))!),
      })),
    );
    const grown = current.flatMap((row) => {
      const before = Buffer.from(row.sketch);
      const merged = encodeSketch(mergeSketch(decodeSketch(row.sketch), own.get(keyText(row))!));
      return merged.equals(before) ? [] : [{ workspace_id: workspaceId, ...keyOf(row), sketch: merged }];
    });
    if (grown.length)
      await writeSketches(
        db,
        inKeyOrder(grown, (r) => [r.app, r.object_type, r.object_id, r.day]),
      );
  }
}

const SKETCH_COLUMNS = ['workspace_id', 'app', 'object_type', 'object_id', 'day', 'sketch'] as const;
const SKETCH_KEY = ['workspace_id', 'app', 'object_type', 'object_id', 'day'] as const;

/** Inserts the batch's own sketches, or locks the existing rows unchanged, and returns what is stored. */
const lockSketches = reusableRows<
  AppEventActorSketchesTable,
  Omit<AppEventActorSketchesTable, 'workspace_id'>
>(SKETCH_COLUMNS, (db, rows) =>
  db
    .insertInto('app_event_actor_sketches')
    .values(rows)
    .onConflict((oc) => oc.columns(SKETCH_KEY).doUpdateSet({ sketch: sql`app_event_actor_sketches.sketch` }))
    .returning(['app', 'object_type', 'object_id', 'day', 'sketch']),
);

const writeSketches = reusableRows<AppEventActorSketchesTable>(SKETCH_COLUMNS, (db, rows) =>
  db
    .insertInto('app_event_actor_sketches')
    .values(rows)
    .onConflict((oc) => oc.columns(SKETCH_KEY).doUpdateSet({ sketch: sql`excluded.sketch` })),
);

const keyOf = (r: { app: string; object_type: string; object_id: string; day: string }) => ({
  app: r.app,
  object_type: r.object_type,
  object_id: r.object_id,
  day: r.day,
});

/**
 * Adds `events` to a site's counter of one bucket unless the total would pass `limit`: the new total, or
 * undefined when nothing was added (the upsert's guard keeps racing calls from passing it together).
 */
export async function countSiteEvents(
  db: Kysely<DB>,
  workspaceId: string,
  siteId: string,
  bucket: string,
  events: number,
  limit: number,
): Promise<number | undefined> {
  if (events > limit) return undefined;
  const total = sql<number>`analytics_site_counters.events + excluded.events`;
  const row = await db
    .insertInto('analytics_site_counters')
    .values({ workspace_id: workspaceId, site_id: siteId, bucket, events })
    .onConflict((oc) =>
      oc
        .columns(['workspace_id', 'site_id', 'bucket'])
        .doUpdateSet({ events: total })
        .where(total, '<=', limit),
    )
    .returning('events')
    .executeTakeFirst();
  return row ? Number(row.events) : undefined;
}

export interface IngestSettings {
  validationMode: ValidationMode;
  /** The operator's entitlement app_event_retention_days, when set. */
  retentionDays: number | null;
}

/** The entitlement that overrides WOS_APP_EVENT_RETENTION_DAYS for one workspace (set by the operator). */
export const RETENTION_ENTITLEMENT = 'app_event_retention_days';

export function retentionOf(entitlements: string): number | null {
  const days = (JSON.parse(entitlements) as Record<string, number | null>)[RETENTION_ENTITLEMENT];
  return typeof days === 'number' && days > 0 ? days : null;
}

export async function ingestSettings(db: Kysely<DB>, workspaceId: string): Promise<IngestSettings> {
  const row = await db
    .selectFrom('workspaces as w')
    .leftJoin('app_event_settings as s', 's.workspace_id', 'w.id')
    .select(['s.validation_mode', 'w.entitlements'])
    .where('w.id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return { validationMode: row.validation_mode ?? 'off', retentionDays: retentionOf(row.entitlements) };
}

/** Sets the workspace's ingest validation mode (the row is created on first use). */
export async function saveValidationMode(
  db: Kysely<DB>,
  workspaceId: string,
  mode: ValidationMode,
  now: string,
): Promise<void> {
  await db
    .insertInto('app_event_settings')
    .values({ workspace_id: workspaceId, validation_mode: mode, updated_at: now })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ validation_mode: mode, updated_at: now }))
    .execute();
}

/** System sweep: every live workspace with its entitlements (retention overrides), for the retention job. */
export async function workspacesForRetention(
  db: Kysely<DB>,
  _system: { system: true },
): Promise<{ id: string; entitlements: string }[]> {
  return db.selectFrom('workspaces').select(['id', 'entitlements']).where('deleted_at', 'is', null).execute();
}

/**
 * Deletes up to `limit` rows of one workspace older than cutoff from a table keyed by workspace first,
 * returning how many went: the retention job repeats it while full batches come back.
 */
export async function deleteOlderThan(
  db: Kysely<DB>,
  workspaceId: string,
  table: 'app_events' | 'app_event_ids',
  cutoff: string,
  limit: number,
): Promise<number> {
  const key = table === 'app_events' ? 'id' : 'event_id';
  const result = await db
    .deleteFrom(table)
    .where('workspace_id', '=', workspaceId)
    .where(key, 'in', (eb) =>
      eb
        .selectFrom(table)
        .select(key)
        .where('workspace_id', '=', workspaceId)
        .where('occurred_at', '<', cutoff)
        .limit(limit),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * Deletes the rollup or actor rows of one workspace's oldest hour (or day) before cutoff, returning how many
 * went (0: nothing is older): the retention job repeats it, one bucket per statement.
 */
export async function deleteOldestBucket(
  db: Kysely<DB>,
  workspaceId: string,
  table: 'app_event_rollups' | 'app_event_hour_totals' | 'app_event_day_rollups' | 'app_event_actor_sketches',
  cutoff: string,
): Promise<number> {
  const column = table === 'app_event_rollups' || table === 'app_event_hour_totals' ? 'hour' : 'day';
  const oldest = await db
    .selectFrom(table)
    .select(column)
    .where('workspace_id', '=', workspaceId)
    .where(column, '<', cutoff)
    .orderBy(column)
    .limit(1)
    .executeTakeFirst();
  if (!oldest) return 0;
  const bucket = (oldest as Record<string, string>)[column]!;
  const result = await db
    .deleteFrom(table)
    .where('workspace_id', '=', workspaceId)
    .where(column, '=', bucket)
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** System sweep: site counter buckets older than a day (the limits read only the current ones). */
export async function deleteOldSiteCounters(db: Kysely<DB>, now: Date, _system: { system: true }) {
  const dayAgo = new Date(now.getTime() - 86_400_000).toISOString();
  await db
    .deleteFrom('analytics_site_counters')
    .where((eb) =>
      eb.or([
        eb.and([eb('bucket', '>=', 'minute:'), eb('bucket', '<', `minute:${dayAgo.slice(0, 16)}`)]),
        eb.and([eb('bucket', '>=', 'day:'), eb('bucket', '<', `day:${dayAgo.slice(0, 10)}`)]),
      ]),
    )
    .execute();
}
