// Queries that maintain the Object Analytics snapshot (app_event_object_windows): its hourly rebuild from
// rollups and the late-change markers ingest leaves. The reads are in object-window-read-store.ts.
// Every function takes the workspace ID, or says it is a system sweep.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../db/dialect.ts';
import type { DB } from '../../db/tables.ts';
import type { AppEventRollupsTable } from './analytics-tables.ts';
import { HOUR, HOURS_OF, iso } from './app-event-window.ts';

export const SNAPSHOT_WINDOWS = ['7d', '30d', '90d'] as const;
export type SnapshotWindow = (typeof SNAPSHOT_WINDOWS)[number];

/** How long an ingest transaction may take at most: the snapshot stops this far before the job's start. */
const INGEST_MARGIN = 5 * 60_000;
const CHUNK = 500;

/**
 * The snapshot's as_of_hour for a rebuild starting at `now`: one hour before the hour of (now - margin).
 * Ingest marks a change as late when its hour is over one hour before the hour it was received in, so every
 * change committed after the rebuild read its rollups is either in an hour >= as_of_hour (read from rollups)
 * or marked (app_event_late_rollups).
 */
export function snapshotHour(now: Date): number {
  return Math.floor((now.getTime() - INGEST_MARGIN) / HOUR) * HOUR - HOUR;
}

/** Snapshot rows written per statement, and old ones deleted per statement: short write transactions. */
const WRITE_BATCH = 2000;

/** A generation's key: the window and its as_of_hour (the rows' window_name). */
const generationOf = (name: SnapshotWindow, asOf: number) => `${name}@${iso(asOf)}`;

/** Deletes one generation's rows in batches (each statement a short transaction). */
async function deleteGeneration(db: Kysely<DB>, workspaceId: string, generation: string): Promise<void> {
  for (;;) {
    const result = await sql`delete from app_event_object_windows
      where workspace_id = ${workspaceId} and window_name = ${generation}
      and (app, object_type, object_id) in (select app, object_type, object_id from app_event_object_windows
        where workspace_id = ${workspaceId} and window_name = ${generation} limit ${WRITE_BATCH})`.execute(
      db,
    );
    if (Number(result.numAffectedRows ?? 0) < WRITE_BATCH) return;
  }
}

/** Deletes the window's generations older than `generation` (its ISO hour sorts them), oldest first. */
async function deleteOlderGenerations(
  db: Kysely<DB>,
  workspaceId: string,
  name: SnapshotWindow,
  generation: string,
): Promise<void> {
  for (;;) {
    // A range on the key's leading columns: the index finds the oldest generation without reading the rows
    // of the kept one.
    const older = await db
      .selectFrom('app_event_object_windows')
      .select('window_name')
      .where('workspace_id', '=', workspaceId)
      .where('window_name', '>=', `${name}@`)
      .where('window_name', '<', generation)
      .where('window_name', 'like', `${name}@%`)
      .limit(1)
      .executeTakeFirst();
    if (!older) return;
    await deleteGeneration(db, workspaceId, older.window_name);
  }
}

/**
 * Rebuilds the workspace's snapshot of each window as of snapshotHour(now). The grouping runs on `read`
 * (the heavy-read connections in the job: off the main thread, never holding the writer); the rows go in as a
 * new generation in short transactions, the state then points the reads at it, and the old generation is
 * deleted in batches. A rebuild that stops half-way leaves the previous generation in use.
 */
export async function rebuildObjectWindows(
  db: Kysely<DB>,
  workspaceId: string,
  now: Date,
  read: Kysely<DB> = db,
): Promise<number> {
  const asOf = snapshotHour(now);
  let rows = 0;
  for (const name of SNAPSHOT_WINDOWS) {
    const generation = generationOf(name, asOf);
    const current = await db
      .selectFrom('app_event_object_window_state')
      .select('generation')
      .where('workspace_id', '=', workspaceId)
      .where('window_name', '=', name)
      .executeTakeFirst();
    if (current?.generation === generation) continue;
    const grouped = await read
      .selectFrom('app_event_rollups')
      .where('workspace_id', '=', workspaceId)
      .where('hour', '>=', iso(asOf - HOURS_OF[name] * HOUR))
      .where('hour', '<', iso(asOf))
      .select((eb) => [
        'app',
        'object_type',
        'object_id',
        eb.fn.sum<number | string>('events').as('events'),
        eb.fn.max<string>('last_seen').as('last_seen'),
      ])
      .groupBy(['app', 'object_type', 'object_id'])
      .execute();
    // Rows a stopped rebuild of this generation left behind.
    await deleteGeneration(db, workspaceId, generation);
    if (grouped.length === 0) {
      // Nothing in the window: no snapshot (the grouped query over no rollups is instant).
      await db
        .deleteFrom('app_event_object_window_state')
        .where('workspace_id', '=', workspaceId)
        .where('window_name', '=', name)
        .execute();
      if (current) await deleteGeneration(db, workspaceId, current.generation);
      continue;
    }
    for (let i = 0; i < grouped.length; i += WRITE_BATCH) {
      await db
        .insertInto('app_event_object_windows')
        .values(
          grouped.slice(i, i + WRITE_BATCH).map((row) => ({
            workspace_id: workspaceId,
            window_name: generation,
            as_of_hour: iso(asOf),
            app: row.app,
            object_type: row.object_type,
            object_id: row.object_id,
            events: Number(row.events),
            last_seen: row.last_seen,
          })),
        )
        .execute();
    }
    // The state only moves forward: when two rebuilds overlap (a slow one and the next hour's), the later
    // hour wins and the earlier one's rows are dropped, whichever finishes first.
    await db
      .insertInto('app_event_object_window_state')
      .values({ workspace_id: workspaceId, window_name: name, generation, as_of_hour: iso(asOf) })
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'window_name'])
          .doUpdateSet({ generation, as_of_hour: iso(asOf) })
          .where('app_event_object_window_state.as_of_hour', '<', iso(asOf)),
      )
      .execute();
    const kept = await db
      .selectFrom('app_event_object_window_state')
      .select('generation')
      .where('workspace_id', '=', workspaceId)
      .where('window_name', '=', name)
      .executeTakeFirst();
    if (kept?.generation !== generation) {
      await deleteGeneration(db, workspaceId, generation);
      continue;
    }
    await deleteOlderGenerations(db, workspaceId, name, generation);
    rows += grouped.length;
  }
  return rows;
}

/**
 * PostgreSQL: refreshes the snapshot's statistics after rebuilds (a system action, over every workspace's
 * rows). Each rebuild writes a new generation the planner has no statistics for; the reads pin their plans
 * (object-window-read.ts), and fresh statistics keep any other reader's plans sound too.
 */
export async function analyzeObjectWindows(db: Kysely<DB>, _system: { system: true }): Promise<void> {
  if (isPostgres(db)) await sql`analyze app_event_object_windows`.execute(db);
}

/**
 * Ingest: records the (object, hour) groups of a batch whose hour is more than one hour before the hour it is
 * received in (late events). Nothing is written for events of the current or the previous hour.
 */
export async function markLateRollups(
  db: Kysely<DB>,
  workspaceId: string,
  rollups: AppEventRollupsTable[],
  now: string,
): Promise<void> {
  const received = Math.floor(Date.parse(now) / HOUR) * HOUR;
  const lateBefore = iso(received - HOUR);
  const late = new Map<string, { app: string; object_type: string; object_id: string; hour: string }>();
  for (const row of rollups) {
    if (row.hour >= lateBefore) continue;
    const { app, object_type, object_id, hour } = row;
    late.set(JSON.stringify([app, object_type, object_id, hour]), { app, object_type, object_id, hour });
  }
  // In key order, as ingest's other upserts: concurrent batches take their locks in one order.
  const ordered = [...late.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
  const rows = ordered.map((row) => ({
    workspace_id: workspaceId,
    received_hour: iso(received),
    ...row,
  }));
  for (let i = 0; i < rows.length; i += CHUNK) {
    await db
      .insertInto('app_event_late_rollups')
      .values(rows.slice(i, i + CHUNK))
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** System sweep: late markers received before `before` (no snapshot read looks that far back). */
export async function deleteLateMarkers(db: Kysely<DB>, before: string, _system: { system: true }) {
  await db.deleteFrom('app_event_late_rollups').where('received_hour', '<', before).execute();
}

/**
 * System sweep: live workspaces with rollups since `since` or a snapshot, with their snapshot's as_of_hour
 * (null when they have none), for the rebuild job.
 */
export async function workspacesForObjectWindows(
  db: Kysely<DB>,
  since: string,
  _system: { system: true },
): Promise<{ id: string; as_of_hour: string | null }[]> {
  // A workspace is as stale as its stalest window.
  const rows = await db
    .selectFrom('workspaces as w')
    .leftJoin('app_event_object_window_state as o', 'o.workspace_id', 'w.id')
    .select((eb) => ['w.id', eb.fn.min<string>('o.as_of_hour').as('as_of_hour')])
    .where('w.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('o.workspace_id', 'is not', null),
        eb.exists(
          eb
            .selectFrom('app_event_rollups as r')
            .select('r.hour')
            .whereRef('r.workspace_id', '=', 'w.id')
            .where('r.hour', '>=', since),
        ),
      ]),
    )
    .groupBy('w.id')
    .execute();
  return rows as { id: string; as_of_hour: string | null }[];
}
