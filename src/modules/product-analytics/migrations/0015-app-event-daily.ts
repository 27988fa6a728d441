import { type Kysely, sql } from 'kysely';
import { actorHash, addHashes, emptySketch, encodeSketch } from '../actor-sketch.ts';
import { isPostgres } from '../partition-store.ts';

// Daily rollups per object and event name (top events of a window read ~31 rows an event name instead of
// ~720 hourly ones) and unique actors as a sketch per object and UTC day (actor-sketch.ts) instead of a row
// per actor: both backfilled from what 0011 kept, then app_event_actors goes.

const OBJECT_DAY = ['workspace_id', 'app', 'object_type', 'object_id'] as const;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('app_event_day_rollups')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('events', 'bigint', (c) => c.notNull())
    .addColumn('first_seen', 'text', (c) => c.notNull())
    .addColumn('last_seen', 'text', (c) => c.notNull())
    // An object's days are read together, but ingest writes them day by day: SQLite keeps the rows in key
    // order; PostgreSQL's key carries the counts, for index-only scans instead of a heap page per row.
    .$call((table) =>
      isPostgres(db)
        ? table
        : table
            .addPrimaryKeyConstraint('app_event_day_rollups_pk', [...OBJECT_DAY, 'event_name', 'day'])
            .modifyEnd(sql`without rowid`),
    )
    .execute();
  if (isPostgres(db)) {
    await sql`alter table app_event_day_rollups add constraint app_event_day_rollups_pk
      primary key (workspace_id, app, object_type, object_id, event_name, day)
      include (events, first_seen, last_seen)`.execute(db);
  }
  await db.schema
    .createIndex('app_event_day_rollups_day')
    .on('app_event_day_rollups')
    .columns(['workspace_id', 'day'])
    .execute();
  await sql`insert into app_event_day_rollups
      (workspace_id, app, object_type, object_id, event_name, day, events, first_seen, last_seen)
    select workspace_id, app, object_type, object_id, event_name, substr(hour, 1, 10), sum(events),
      min(first_seen), max(last_seen)
    from app_event_rollups
    group by workspace_id, app, object_type, object_id, event_name, substr(hour, 1, 10)`.execute(db);

  await db.schema
    .createTable('app_event_actor_sketches')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('app', 'text', (c) => c.notNull())
    .addColumn('object_type', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('sketch', isPostgres(db) ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('app_event_actor_sketches_pk', [...OBJECT_DAY, 'day'])
    .execute();
  await db.schema
    .createIndex('app_event_actor_sketches_day')
    .on('app_event_actor_sketches')
    .columns(['workspace_id', 'day'])
    .execute();
  await backfillSketches(db);
  await db.schema.dropTable('app_event_actors').execute();
}

type ActorRow = Record<(typeof OBJECT_DAY)[number] | 'day' | 'actor', string>;

/** Reads app_event_actors in key order, 5,000 rows a query, writing one sketch per object and day. */
async function backfillSketches(db: Kysely<any>): Promise<void> {
  const keyColumns = [...OBJECT_DAY, 'day', 'actor'] as const;
  let after: ActorRow | undefined;
  let current: { key: string; row: ActorRow; hashes: number[] } | undefined;
  const flush = async () => {
    if (!current) return;
    const { actor: _actor, ...key } = current.row;
    await db
      .insertInto('app_event_actor_sketches')
      .values({ ...key, sketch: encodeSketch(addHashes(emptySketch(), current.hashes)) })
      .execute();
  };
  for (;;) {
    let query = db.selectFrom('app_event_actors').select([...keyColumns]);
    if (after) {
      const last = after;
      // A row-value comparison (SQLite and PostgreSQL): the rows after the last one read, in key order.
      query = query.where(
        sql<boolean>`(${sql.join(keyColumns.map((c) => sql.ref(c)))}) > (${sql.join(keyColumns.map((c) => last[c]))})`,
      );
    }
    for (const column of keyColumns) query = query.orderBy(column);
    const rows = (await query.limit(5000).execute()) as ActorRow[];
    for (const row of rows) {
      const key = JSON.stringify([...OBJECT_DAY.map((c) => row[c]), row.day]);
      if (current?.key !== key) {
        await flush();
        current = { key, row, hashes: [] };
      }
      current.hashes.push(actorHash(row.actor));
    }
    if (rows.length < 5000) break;
    after = rows[rows.length - 1];
  }
  await flush();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('app_event_actor_sketches').execute();
  await db.schema.dropTable('app_event_day_rollups').execute();
}
