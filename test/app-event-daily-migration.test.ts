// Migration 0015 on a database that 0011 left with data: daily rollups summed from the hourly ones, the
// exact actor rows folded into one sketch per object and day, app_event_actors gone. Both databases.
import { type Kysely, type Migration, Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { decodeSketch, estimate } from '../src/modules/product-analytics/actor-sketch.ts';
import * as m0011 from '../src/modules/product-analytics/migrations/0011-product-analytics.ts';
import * as m0015 from '../src/modules/product-analytics/migrations/0015-app-event-daily.ts';
import { isolatedDatabase } from './helpers/harness.ts';

let place: Awaited<ReturnType<typeof isolatedDatabase>>;
let database: ReturnType<typeof openDatabase>;
let db: Kysely<any>;

const migrate = async (migrations: Record<string, Migration>) => {
  const schema = place.env.WOS_DATABASE_SCHEMA;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
};

beforeAll(async () => {
  place = await isolatedDatabase();
  database = openDatabase(loadConfig({ ...place.env }));
  db = database.db as Kysely<any>;
});
afterAll(async () => {
  await database.close();
  await place.drop();
});

describe('migration 0015-app-event-daily', () => {
  it('backfills daily rollups and actor sketches from what 0011 kept', async () => {
    await migrate({ '0011-product-analytics': m0011 });
    const object = { workspace_id: 'ws_1', app: 'shop', object_type: 'order', object_id: 'o1' };
    const hour = (h: number, events: number) => ({
      ...object,
      event_name: 'order.viewed',
      hour: `2026-11-21T${String(h).padStart(2, '0')}:00:00.000Z`,
      events,
      first_seen: `2026-11-21T${String(h).padStart(2, '0')}:05:00.000Z`,
      last_seen: `2026-11-21T${String(h).padStart(2, '0')}:55:00.000Z`,
    });
    await db
      .insertInto('app_event_rollups')
      .values([hour(9, 3), hour(10, 2)])
      .execute();
    // 6,000 actor rows over two days (more than one backfill page), 700 distinct on the first day.
    const actors = Array.from({ length: 6000 }, (_, i) => ({
      ...object,
      day: i < 3000 ? '2026-11-20' : '2026-11-21',
      actor: i < 3000 ? `usr_${i % 700}_${i}` : `usr_${i}`,
    }));
    const firstDay = new Set(actors.filter((a) => a.day === '2026-11-20').map((a) => a.actor));
    for (let i = 0; i < actors.length; i += 500) {
      await db
        .insertInto('app_event_actors')
        .values(actors.slice(i, i + 500))
        .execute();
    }
    await db
      .insertInto('app_event_actors')
      .values({ ...object, object_id: 'o2', day: '2026-11-21', actor: 'a' })
      .execute();

    await migrate({ '0011-product-analytics': m0011, '0015-app-event-daily': m0015 });

    const days = await db.selectFrom('app_event_day_rollups').selectAll().execute();
    expect(days.map((d) => [d.day, Number(d.events), d.first_seen, d.last_seen])).toEqual([
      ['2026-11-21', 5, '2026-11-21T09:05:00.000Z', '2026-11-21T10:55:00.000Z'],
    ]);
    const sketches = await db
      .selectFrom('app_event_actor_sketches')
      .selectAll()
      .orderBy('object_id')
      .orderBy('day')
      .execute();
    expect(sketches.map((s) => [s.object_id, s.day])).toEqual([
      ['o1', '2026-11-20'],
      ['o1', '2026-11-21'],
      ['o2', '2026-11-21'],
    ]);
    const counts = sketches.map((s) => estimate(decodeSketch(s.sketch)));
    expect(Math.abs(counts[0]! - firstDay.size) / firstDay.size).toBeLessThan(0.05);
    expect(Math.abs(counts[1]! - 3000) / 3000).toBeLessThan(0.05);
    expect(counts[2]).toBe(1);
    // Gone (introspection would list every test schema's tables on PostgreSQL, while others drop theirs).
    await expect(db.selectFrom('app_event_actors').selectAll().execute()).rejects.toThrow();
  });
});
