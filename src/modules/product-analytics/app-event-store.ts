// Queries of application events: the ingest write (event_id ledger, raw rows, hourly rollups, daily
// actors, site counters) and retention. Every function takes the workspace ID, or says it is a system
// sweep across workspaces.
import { type Kysely, sql } from 'kysely';
import type { DB } from '../../db/tables.ts';
import type { AppEventRollupsTable, AppEventsTable, ValidationMode } from './analytics-tables.ts';

// Rows per statement: 22 columns x 500 stays under SQLite's and PostgreSQL's bound-parameter limits.
const CHUNK = 500;

function chunks<T>(rows: T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
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
  for (const part of chunks(ids)) {
    const rows = await db
      .insertInto('app_event_ids')
      .values(part.map((id) => ({ workspace_id: workspaceId, ...id })))
      .onConflict((oc) => oc.columns(['workspace_id', 'event_id']).doNothing())
      .returning('event_id')
      .execute();
    for (const row of rows) fresh.add(row.event_id);
  }
  return fresh;
}

export async function insertAppEvents(db: Kysely<DB>, rows: AppEventsTable[]): Promise<void> {
  for (const part of chunks(rows)) await db.insertInto('app_events').values(part).execute();
}

/** Adds a batch's rollups (already summed per group in memory): one upsert per group. */
export async function addRollups(db: Kysely<DB>, rows: AppEventRollupsTable[]): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto('app_event_rollups')
      .values(part)
      .onConflict((oc) =>
        oc.columns(['workspace_id', 'app', 'object_type', 'object_id', 'event_name', 'hour']).doUpdateSet({
          events: sql`app_event_rollups.events + excluded.events`,
          first_seen: sql`case when excluded.first_seen < app_event_rollups.first_seen
            then excluded.first_seen else app_event_rollups.first_seen end`,
          last_seen: sql`case when excluded.last_seen > app_event_rollups.last_seen
            then excluded.last_seen else app_event_rollups.last_seen end`,
        }),
      )
      .execute();
  }
}

export interface ActorRow {
  workspace_id: string;
  app: string;
  object_type: string;
  object_id: string;
  day: string;
  actor: string;
}

export async function addActors(db: Kysely<DB>, rows: ActorRow[]): Promise<void> {
  for (const part of chunks(rows)) {
    await db
      .insertInto('app_event_actors')
      .values(part)
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

/** Adds `events` to a site's counter of one bucket and returns the new total. */
export async function countSiteEvents(
  db: Kysely<DB>,
  workspaceId: string,
  siteId: string,
  bucket: string,
  events: number,
): Promise<number> {
  const row = await db
    .insertInto('analytics_site_counters')
    .values({ workspace_id: workspaceId, site_id: siteId, bucket, events })
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'site_id', 'bucket']).doUpdateSet({
        events: sql`analytics_site_counters.events + excluded.events`,
      }),
    )
    .returning('events')
    .executeTakeFirstOrThrow();
  return Number(row.events);
}

export interface IngestSettings {
  validationMode: ValidationMode;
  retentionDays: number | null;
}

export async function ingestSettings(db: Kysely<DB>, workspaceId: string): Promise<IngestSettings> {
  const row = await db
    .selectFrom('app_event_settings')
    .select(['validation_mode', 'retention_days'])
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return {
    validationMode: row?.validation_mode ?? 'off',
    retentionDays: row?.retention_days == null ? null : Number(row.retention_days),
  };
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
    .values({ workspace_id: workspaceId, validation_mode: mode, retention_days: null, updated_at: now })
    .onConflict((oc) => oc.column('workspace_id').doUpdateSet({ validation_mode: mode, updated_at: now }))
    .execute();
}
