import { type Kysely, sql } from 'kysely';
import { ensureMonthPartitions, isPostgres } from '../partition-store.ts';

// Application events (raw, hourly rollups, daily actors, the event_id ledger), ingest settings and
// Analytics Sites. Every key starts with workspace_id. On PostgreSQL app_events is partitioned by month
// of occurred_at (its primary key must hold the partition key); a default partition catches stragglers.

export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('app_events')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text')
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('properties', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text')
    .addColumn('anonymous_id', 'text')
    .addColumn('session_id', 'text')
    .addColumn('page_url', 'text')
    .addColumn('referrer', 'text')
    .addColumn('locale', 'text')
    .addColumn('timezone', 'text')
    .addColumn('user_agent', 'text')
    .addColumn('source_type', 'text', (c) => c.notNull())
    .addColumn('source_id', 'text', (c) => c.notNull())
    .addColumn('warnings', 'text')
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_events_pk', ['workspace_id', 'occurred_at', 'id'])
    .$call((table) => (postgres ? table.modifyEnd(sql`partition by range (occurred_at)`) : table))
    .execute();
  if (postgres) {
    await sql`create table app_events_default partition of app_events default`.execute(db);
    const now = new Date();
    await ensureMonthPartitions(
      db,
      new Date(now.getTime() - 100 * 86_400_000),
      new Date(now.getTime() + 62 * 86_400_000),
    );
  }
  // One object's drill-down, newest first.
  await db.schema
    .createIndex('app_events_object')
    .on('app_events')
    .columns(['workspace_id', 'app', 'object_type', 'object_id', 'occurred_at', 'id'])
    .execute();

  await db.schema
    .createTable('app_event_ids')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('occurred_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_ids_pk', ['workspace_id', 'event_id'])
    .execute();
  await db.schema
    .createIndex('app_event_ids_occurred')
    .on('app_event_ids')
    .columns(['occurred_at'])
    .execute();

  await db.schema
    .createTable('app_event_rollups')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_rollups_pk', [
      'workspace_id',
      'app',
      'object_type',
      'object_id',
      'event_name',
      'hour',
    ])
    .execute();
  // The grouped view and the timeseries scan a window of hours of one workspace.
  await db.schema
    .createIndex('app_event_rollups_hour')
    .on('app_event_rollups')
    .columns(['workspace_id', 'hour'])
    .execute();

  // Object Analytics snapshot: per object, events and last_seen over a relative window's complete hours as
  // of as_of_hour, rebuilt hourly by the app-events.object-windows job; one index per sort of the grouped view.
  // window_name holds the generation (30d@<as_of_hour>): a rebuild writes a new one in small transactions,
  // then app_event_object_window_state points the reads at it, then the old one is deleted in batches.
  await db.schema
    .createTable('app_event_object_window_state')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('window_name', 'text', (c) => c.notNull())
    .addColumn('generation', 'text', (c) => c.notNull())
    .addColumn('as_of_hour', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_object_window_state_pk', ['workspace_id', 'window_name'])
    .execute();
  await db.schema
    .createTable('app_event_object_windows')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('window_name', 'text', (c) => c.notNull())
    .addColumn('as_of_hour', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_object_windows_pk', [
      'workspace_id',
      'window_name',
      'app',
      'object_type',
      'object_id',
    ])
    .execute();
  for (const sort of ['events', 'last_seen']) {
    await db.schema
      .createIndex(`app_event_object_windows_${sort}`)
      .on('app_event_object_windows')
      .columns(['workspace_id', 'window_name', sort, 'app', 'object_type', 'object_id'])
      .execute();
  }
  // Late rollup changes: (object, hour) groups that ingest added to an hour more than one hour before the
  // hour it received them in. Snapshot reads recount these objects from rollups; kept a few hours.
  await db.schema
    .createTable('app_event_late_rollups')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('received_hour', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_late_rollups_pk', [
      'workspace_id',
      'received_hour',
      'app',
      'object_type',
      'object_id',
      'hour',
    ])
    .execute();

  // Events per hour of each app and event name: the timeseries without object filters reads these (a few
  // rows an hour) instead of every object's rollups. Maintained with the rollups, in the ingest transaction.
  await db.schema
    .createTable('app_event_hour_totals')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('hour', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_hour_totals_pk', ['workspace_id', 'hour', 'app', 'event_name'])
    .execute();

  await db.schema
    .createTable('app_event_actors')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_actors_pk', [
      'workspace_id',
      'app',
      'object_type',
      'object_id',
      'day',
      'actor',
    ])
    .execute();
  await db.schema
    .createIndex('app_event_actors_day')
    .on('app_event_actors')
    .columns(['workspace_id', 'day'])
    .execute();

  await db.schema
    .createTable('app_event_settings')
    .addColumn('workspace_id', 'text', (c) => c.notNull().primaryKey())
    .addColumn('validation_mode', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('analytics_sites')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('allowed_origins', 'text', (c) => c.notNull())
    .addColumn('allowed_apps', 'text', (c) => c.notNull())
    .addColumn('validation_mode', 'text', (c) => c.notNull())
    .addColumn('events_per_minute', 'integer', (c) => c.notNull())
    .addColumn('daily_quota', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('archived_at', 'text')
    .addPrimaryKeyConstraint('analytics_sites_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('analytics_sites_list')
    .on('analytics_sites')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('analytics_site_keys')
    .addColumn('key', 'text', (c) => c.notNull().primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text')
    .addForeignKeyConstraint('analytics_site_keys_site', ['workspace_id', 'site_id'], 'analytics_sites', [
      'workspace_id',
      'id',
    ])
    .execute();
  await db.schema
    .createIndex('analytics_site_keys_site')
    .on('analytics_site_keys')
    .columns(['workspace_id', 'site_id'])
    .execute();

  await db.schema
    .createTable('analytics_site_counters')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('site_id', 'text', (c) => c.notNull())
    .addColumn('bucket', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('analytics_site_counters_pk', ['workspace_id', 'site_id', 'bucket'])
    .execute();
}
