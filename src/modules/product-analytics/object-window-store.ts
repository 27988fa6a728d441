// Queries that maintain the Object Analytics snapshot (app_event_object_windows): its hourly rebuild from
// rollups and the late-change markers ingest leaves. The reads are in object-window-read-store.ts.
// Every function takes the workspace ID, or says it is a system sweep.
import { type Kysely, sql } from 'kysely';
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

/** Replaces the workspace's snapshot of each window, in one transaction, as of snapshotHour(now). */
export async function rebuildObjectWindows(db: Kysely<DB>, workspaceId: string, now: Date): Promise<number> {
  const asOf = snapshotHour(now);
  let rows = 0;
  await db.transaction().execute(async (trx) => {
    for (const name of SNAPSHOT_WINDOWS) {
      await trx
        .deleteFrom('app_event_object_windows')
        .where('workspace_id', '=', workspaceId)
        .where('window_name', '=', name)
        .execute();
      const grouped = trx
        .selectFrom('app_event_rollups')
        .where('workspace_id', '=', workspaceId)
        .where('hour', '>=', iso(asOf - HOURS_OF[name] * HOUR))
        .where('hour', '<', iso(asOf))
        .select((eb) => [
          'workspace_id',
          sql<string>`cast(${name} as text)`.as('window_name'),
          sql<string>`cast(${iso(asOf)} as text)`.as('as_of_hour'),
          'app',
          'object_type',
          'object_id',
          eb.fn.sum<number>('events').as('events'),
          eb.fn.max<string>('last_seen').as('last_seen'),
        ])
        .groupBy(['workspace_id', 'app', 'object_type', 'object_id']);
      const result = await trx
        .insertInto('app_event_object_windows')
        .columns([
          'workspace_id',
          'window_name',
          'as_of_hour',
          'app',
          'object_type',
          'object_id',
          'events',
          'last_seen',
        ])
        .expression(grouped)
        .executeTakeFirst();
      rows += Number(result.numInsertedOrUpdatedRows ?? 0);
    }
  });
  return rows;
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
  const rows = [...late.values()].map((row) => ({
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
  const asOf = (eb: any) =>
    eb
      .selectFrom('app_event_object_windows as o')
      .select('o.as_of_hour')
      .whereRef('o.workspace_id', '=', 'w.id')
      .limit(1);
  const rows = await db
    .selectFrom('workspaces as w')
    .select((eb) => ['w.id', asOf(eb).as('as_of_hour')])
    .where('w.deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('app_event_rollups as r')
            .select('r.hour')
            .whereRef('r.workspace_id', '=', 'w.id')
            .where('r.hour', '>=', since),
        ),
        eb.exists(asOf(eb)),
      ]),
    )
    .execute();
  return rows as { id: string; as_of_hour: string | null }[];
}
