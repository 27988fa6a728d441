// Object Analytics snapshots (app_event_object_windows): a 7d/30d/90d window answers from the hourly
// snapshot plus the hours at its edges and the objects with late events, and answers exactly what grouping the
// rollups answers (the same window sent as from/to always groups rollups): both sorts, filters, every page.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { rebuildStaleObjectWindows } from '../src/modules/product-analytics/object-window-job.ts';
import { rebuildObjectWindows } from '../src/modules/product-analytics/object-window-store.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let h: Harness;
let a: TestWorkspace;
let other: TestWorkspace;

// Upper and lower case: ties sort by object key in the databases' binary text order.
const OBJECTS = ['shop:order', 'shop:Order', 'blog:post'].flatMap((kind) =>
  ['a1', 'a2', 'B3', 'b4', 'c5', 'C6', 'd7'].map((id) => `${kind}:${id}`),
);
const NAMES = ['thing.viewed', 'thing.created', 'thing.paid'];

/** A small deterministic generator: the same events every run. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** `count` events of random objects between `from` and `to` (ms), with random names and actors. */
function events(seed: number, count: number, from: number, to: number) {
  const rng = random(seed);
  return Array.from({ length: count }, () => {
    const [app, object_type, object_id] = OBJECTS[Math.floor(rng() * rng() * OBJECTS.length)]!.split(':');
    return {
      app,
      object_type,
      object_id,
      event_name: NAMES[Math.floor(rng() * NAMES.length)],
      occurred_at: new Date(from + Math.floor(rng() * (to - from))).toISOString(),
      user_id: `u${Math.floor(rng() * 5)}`,
    };
  });
}

async function send(ws: TestWorkspace, list: unknown[]) {
  const res = await h.request('POST', '/v1/insights/app-events', {
    token: ws.apiKey,
    body: { events: list },
  });
  expect([res.status, res.body.accepted], res.text).toEqual([202, list.length]);
}

/** Every page of a grouped query (3 objects a page), and the window it answered for. */
async function allPages(query: string) {
  const objects: unknown[] = [];
  let url = `/v1/insights/app-events?limit=3&${query}`;
  let window: string[] = [];
  for (let i = 0; i < 100; i++) {
    const res = await h.request('GET', url, { token: a.apiKey });
    expect(res.status, res.text).toBe(200);
    objects.push(...res.body.objects);
    window = [res.body.from, res.body.to];
    if (!res.body.next_cursor) return { objects, window };
    url = `/v1/insights/app-events?limit=3&${query}&cursor=${encodeURIComponent(res.body.next_cursor)}`;
  }
  throw new Error('too many pages');
}

const QUERIES = ['', 'sort=last_seen', 'app=shop', 'object_type=Order&sort=last_seen', 'object_id=b4'];

/** The snapshot path answers every query as grouping the rollups over the same hours does. */
async function expectExact(window: '7d' | '30d') {
  for (const query of QUERIES) {
    const snapshot = await allPages(`window=${window}&${query}`);
    const [from, to] = snapshot.window;
    const grouped = await allPages(`from=${from}&to=${to}&${query}`);
    expect(snapshot.objects.length, query).toBeGreaterThan(0);
    expect(snapshot.objects, `${window} ${query}`).toEqual(grouped.objects);
  }
}

/** An object of the 7d snapshot without late events: its answer adds the edges to its snapshot count. */
async function untouchedObject() {
  // Late events received since the snapshot (as of 11:00) was taken.
  const late = await h.db
    .selectFrom('app_event_late_rollups')
    .selectAll()
    .where('workspace_id', '=', a.id)
    .where('received_hour', '>=', '2026-11-21T12:00:00.000Z')
    .execute();
  const marked = new Set(late.map((row) => `${row.app}:${row.object_type}:${row.object_id}`));
  const rows = await h.db
    .selectFrom('app_event_object_windows')
    .select(['app', 'object_type', 'object_id'])
    .where('workspace_id', '=', a.id)
    .where('window_name', 'like', '7d@%')
    .execute();
  const row = rows.find((r) => !marked.has(`${r.app}:${r.object_type}:${r.object_id}`))!;
  expect(row).toBeDefined();
  return row;
}

/** Adds 1000 to an object's snapshot count: visible only when the answer comes from the snapshot. */
async function skewSnapshot(key: { app: string; object_type: string; object_id: string }) {
  await h.db
    .updateTable('app_event_object_windows')
    .set({ events: sql`events + 1000` })
    .where('workspace_id', '=', a.id)
    .where('app', '=', key.app)
    .where('object_type', '=', key.object_type)
    .where('object_id', '=', key.object_id)
    .execute();
}
const firstOf = async (query: string) =>
  (await h.request('GET', `/v1/insights/app-events?${query}`, { token: a.apiKey })).body.objects[0];

beforeAll(async () => {
  h = await Harness.start();
  a = await h.workspace('Snapshots A');
  other = await h.workspace('Snapshots B');
  // Ten days of history, sent as it happened (a day at a time), then the clock stops at 12:20.
  const start = Date.parse('2026-11-11T12:00:00.000Z');
  for (let day = 0; day < 10; day++) {
    h.clock.current = new Date(start + (day + 1) * DAY);
    await send(a, events(day + 1, 120, start + day * DAY, start + (day + 1) * DAY));
  }
  await send(other, events(99, 50, start + 9 * DAY, start + 10 * DAY));
  h.clock.current = new Date('2026-11-21T12:20:00.000Z');
});
afterAll(() => h.close());

describe('Object Analytics snapshots', () => {
  it('answers 7d and 30d windows from the snapshot, exactly, with new, late and expired hours', async () => {
    expect(await rebuildStaleObjectWindows(h.db, h.clock.now())).toBe(2);
    // Fresh already: nothing to do until the next hour's snapshot.
    expect(await rebuildStaleObjectWindows(h.db, h.clock.now())).toBe(0);
    await expectExact('7d');

    // After the snapshot (as of 11:00): events of 11:00 and the current hour, and late ones days back.
    const now = h.clock.now().getTime();
    await send(a, events(20, 40, now - 80 * 60_000, now));
    await send(a, events(21, 30, now - 6 * DAY, now - 2 * DAY));
    await expectExact('7d');
    await expectExact('30d');

    // Two hours on: the window's first hours leave it; more events, some late again.
    h.clock.advance(2 * HOUR);
    await send(a, events(22, 30, h.clock.now().getTime() - 3 * HOUR, h.clock.now().getTime()));
    await send(a, events(23, 10, now - 7 * DAY + HOUR, now - 7 * DAY + 3 * HOUR));
    await expectExact('7d');
    await expectExact('30d');

    // PostgreSQL's snapshot reads turn bitmap scans and sorts off for themselves (snapshotPlans): both heavy
    // connections have them on again.
    if (h.service.deps.database.dialect === 'postgres') {
      const heavy = h.service.deps.database.heavy;
      const settings = await Promise.all(
        [1, 2].map(async () => {
          const { rows } = await sql<{ settings: string; pid: number }>`select
            current_setting('enable_bitmapscan') || ' ' || current_setting('enable_sort') as settings,
            pg_backend_pid() as pid, pg_sleep(0.1) as slept`.execute(heavy);
          return rows[0]!;
        }),
      );
      expect(settings.map((row) => row.settings)).toEqual(['on on', 'on on']);
      expect(new Set(settings.map((row) => row.pid)).size).toBe(2);
    }
  });

  it('serves those windows from the snapshot while it is recent, and groups rollups once it is old', async () => {
    h.clock.current = new Date('2026-11-21T14:20:00.000Z');
    const key = await untouchedObject();
    const query = `window=7d&app=${key.app}&object_type=${key.object_type}&object_id=${key.object_id}`;
    const before = await firstOf(query);
    await skewSnapshot(key);
    // The snapshot answered: its count (skewed here on purpose) is what the read added the edges to.
    expect((await firstOf(query)).events).toBe(before.events + 1000);
    // Not with an event_name filter, nor for from/to.
    expect((await firstOf(`${query}&event_name=${before.top_events[0].event_name}`)).events).toBeLessThan(
      1000,
    );
    const range = await firstOf(
      `from=2026-11-14T14:00:00Z&app=${key.app}&object_id=${key.object_id}&object_type=${key.object_type}`,
    );
    expect(range.events).toBe(before.events);

    // Five hours later the snapshot is too old: the rollups answer.
    h.clock.advance(5 * HOUR);
    expect((await firstOf(query)).events).toBeLessThan(1000);
    // Rebuilt: exact again, from the snapshot.
    expect(await rebuildStaleObjectWindows(h.db, h.clock.now())).toBe(2);
    await expectExact('7d');
  });

  it('empties the snapshot of a workspace whose rollups left the window', async () => {
    h.clock.advance(100 * DAY);
    expect(await rebuildStaleObjectWindows(h.db, h.clock.now())).toBe(2);
    const rows = await h.db
      .selectFrom('app_event_object_windows')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', 'in', [a.id, other.id])
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(0);
    expect(await rebuildStaleObjectWindows(h.db, h.clock.now())).toBe(0);
  });
});

describe('a snapshot whose busiest objects all lost events', () => {
  it('still finds the untouched objects ranked below them (the scan goes past its first chunk)', async () => {
    // Written directly: the snapshot as of 13:00 says o01..o14 had 100 events and o15..o20 had 50; the hour
    // that left the window since (7 days before 13:00) held 95 of each of o01..o14's events.
    h.clock.current = new Date('2026-11-21T14:20:00.000Z');
    const ws = await h.workspace('Snapshot chunks');
    const asOf = '2026-11-21T13:00:00.000Z';
    const generation = `7d@${asOf}`;
    const gone = new Date(Date.parse(asOf) - 168 * HOUR).toISOString();
    const ids = Array.from({ length: 20 }, (_, i) => `o${String(i + 1).padStart(2, '0')}`);
    const key = (id: string) => ({ workspace_id: ws.id, app: 'shop', object_type: 'item', object_id: id });
    await h.db
      .insertInto('app_event_object_window_state')
      .values({ workspace_id: ws.id, window_name: '7d', generation, as_of_hour: asOf })
      .execute();
    await h.db
      .insertInto('app_event_object_windows')
      .values(
        ids.map((id, i) => ({
          ...key(id),
          window_name: generation,
          as_of_hour: asOf,
          events: i < 14 ? 100 : 50,
          last_seen: '2026-11-21T12:00:00.000Z',
        })),
      )
      .execute();
    await h.db
      .insertInto('app_event_rollups')
      .values(
        ids.slice(0, 14).map((id) => ({
          ...key(id),
          event_name: 'item.viewed',
          hour: gone,
          events: 95,
          first_seen: gone,
          last_seen: gone,
        })),
      )
      .execute();
    const res = await h.request('GET', '/v1/insights/app-events?window=7d&limit=3', { token: ws.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(
      res.body.objects.map((o: { object_id: string; events: number }) => [o.object_id, o.events]),
    ).toEqual([
      ['o15', 50],
      ['o16', 50],
      ['o17', 50],
    ]);
  });
});

describe('overlapping rebuilds', () => {
  it('keep the later hour whichever finishes first, and leave no other generation behind', async () => {
    const ws = await h.workspace('Overlapping rebuilds');
    const now = h.clock.now().getTime();
    await send(ws, events(11, 30, now - 3 * DAY, now - 3 * HOUR));
    const generations = async () =>
      (
        await h.db
          .selectFrom('app_event_object_windows')
          .select('window_name')
          .distinct()
          .where('workspace_id', '=', ws.id)
          .where('window_name', 'like', '7d@%')
          .execute()
      ).map((g) => g.window_name);
    const state = async () =>
      (
        await h.db
          .selectFrom('app_event_object_window_state')
          .select('as_of_hour')
          .where('workspace_id', '=', ws.id)
          .where('window_name', '=', '7d')
          .executeTakeFirst()
      )?.as_of_hour;
    const later = new Date(now + 2 * HOUR);
    const earlier = new Date(now + HOUR);
    const laterHour = new Date(Math.floor(now / HOUR) * HOUR + HOUR).toISOString();
    // The later hour's rebuild finishes first: the slower, earlier one must not move the reads back.
    await rebuildObjectWindows(h.db, ws.id, later);
    await rebuildObjectWindows(h.db, ws.id, earlier);
    expect([await state(), await generations()]).toEqual([laterHour, [`7d@${laterHour}`]]);
    // An earlier rebuild's rows that the later one did not know of (it read the state before they landed).
    const earlierHour = new Date(Math.floor(now / HOUR) * HOUR).toISOString();
    const latest = new Date(now + 3 * HOUR);
    const latestHour = new Date(Math.floor(now / HOUR) * HOUR + 2 * HOUR).toISOString();
    await h.db
      .insertInto('app_event_object_windows')
      .values({
        workspace_id: ws.id,
        window_name: `7d@${earlierHour}`,
        as_of_hour: earlierHour,
        app: 'left',
        object_type: 'over',
        object_id: '1',
        events: 1,
        last_seen: earlierHour,
      })
      .execute();
    await rebuildObjectWindows(h.db, ws.id, latest);
    expect([await state(), await generations()]).toEqual([latestHour, [`7d@${latestHour}`]]);
  });
});

describe('the app-events.object-windows job', () => {
  it('rebuilds the snapshots every hour from the worker', async () => {
    const worker = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '20' } });
    try {
      const ws = await worker.workspace('Snapshot job');
      const now = worker.clock.now().getTime();
      const res = await worker.request('POST', '/v1/insights/app-events', {
        token: ws.apiKey,
        body: { events: events(7, 20, now - 3 * DAY, now - 2 * HOUR) },
      });
      expect(res.status, res.text).toBe(202);
      // 13:15: the job of 13:10 snapshots the hours before 12:00.
      worker.clock.advance(75 * 60_000);
      await worker.worker!.tick();
      await vi.waitFor(
        async () => {
          // The state row names the generation reads use; a rebuild the worker ran before the clock moved may
          // have left an older generation's rows behind for a while.
          const row = await worker.db
            .selectFrom('app_event_object_window_state')
            .select(['as_of_hour'])
            .where('workspace_id', '=', ws.id)
            .where('window_name', '=', '7d')
            .executeTakeFirst();
          expect(row?.as_of_hour).toBe(new Date(Math.floor(now / HOUR) * HOUR).toISOString());
        },
        { timeout: 15_000, interval: 50 },
      );
      if (usingPostgres) {
        // The job refreshes the snapshot's statistics after its rebuilds (a new generation has none).
        await vi.waitFor(
          async () => {
            const stats = await sql<{
              analyzed: unknown;
            }>`select last_analyze as analyzed from pg_stat_user_tables
              where relname = 'app_event_object_windows' and schemaname = current_schema()`.execute(
              worker.db,
            );
            expect(stats.rows[0]?.analyzed).toBeTruthy();
          },
          { timeout: 15_000, interval: 50 },
        );
      }
      // An hour on, the next rebuild writes a new generation and deletes the old one once the reads use it.
      worker.clock.advance(HOUR);
      await worker.worker!.tick();
      await vi.waitFor(
        async () => {
          const generations = await worker.db
            .selectFrom('app_event_object_windows')
            .select('window_name')
            .distinct()
            .where('workspace_id', '=', ws.id)
            .execute();
          const next = new Date(Math.floor(now / HOUR) * HOUR + HOUR).toISOString();
          expect(generations.map((g) => g.window_name).sort()).toEqual(
            ['30d', '7d', '90d'].map((name) => `${name}@${next}`),
          );
        },
        { timeout: 15_000, interval: 50 },
      );
    } finally {
      await worker.close();
    }
  });
});
