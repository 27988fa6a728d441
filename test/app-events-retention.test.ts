// Retention of application events: raw events and their event_id ledger after the workspace's retention
// (the operator may set a workspace's own), rollups and actor sketches after two years, by the hourly job.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const DAY = 86_400_000;
const WAIT = { timeout: 15_000, interval: 50 };

let h: Harness;
let standard: TestWorkspace;
let longer: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '20' } });
  standard = await h.workspace('Standard retention');
  longer = await h.workspace('Longer retention');
  const set = await h.admin('PATCH', `/workspaces/${longer.id}`, {
    entitlements: { app_event_retention_days: 200 },
  });
  expect(set.status, set.text).toBe(200);
});
afterAll(() => h.close());

type Counted =
  | 'app_events'
  | 'app_event_ids'
  | 'app_event_rollups'
  | 'app_event_day_rollups'
  | 'app_event_actor_sketches';
const count = async (table: Counted, workspaceId: string) =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function send(ws: TestWorkspace, ids: string[]) {
  const events = ids.map((id) => ({
    app: 'shop',
    event_name: 'page.viewed',
    object_type: 'page',
    object_id: '/pricing',
    event_id: id,
    user_id: 'usr_1',
  }));
  const res = await h.request('POST', '/v1/insights/app-events', { token: ws.apiKey, body: { events } });
  expect(res.status, res.text).toBe(202);
}

describe('app event retention', () => {
  it('drops raw events after the retention, keeps rollups for two years, and honours the operator override', async () => {
    await send(standard, ['old-1', 'old-2']);
    await send(longer, ['old-1']);
    expect(
      (await h.request('GET', '/v1/insights/app-events/settings', { token: longer.apiKey })).body.settings,
    ).toMatchObject({ retention_days: 200 });
    h.clock.advance(60 * DAY);
    await send(standard, ['new-1']);

    // 91 days after the first events: past the default 90 days, inside the override's 200.
    h.clock.advance(31 * DAY);
    await h.worker!.tick();
    await vi.waitFor(async () => {
      expect(await count('app_events', standard.id)).toBe(1);
      expect(await count('app_event_ids', standard.id)).toBe(1);
    }, WAIT);
    expect(await count('app_events', longer.id)).toBe(1);
    expect(await count('app_event_rollups', standard.id)).toBe(2);
    expect(await count('app_event_day_rollups', standard.id)).toBe(2);
    expect(await count('app_event_actor_sketches', standard.id)).toBe(2);
    // An event older than the retention is refused at ingest: its event_id may have been forgotten.
    const late = await h.request('POST', '/v1/insights/app-events', {
      token: standard.apiKey,
      body: {
        app: 'shop',
        event_name: 'page.viewed',
        object_type: 'page',
        object_id: '/pricing',
        occurred_at: new Date(h.clock.now().getTime() - 95 * DAY).toISOString(),
      },
    });
    expect(late.status).toBe(400);
    expect(late.body.error.field_errors[0].field).toBe('occurred_at');

    // Two years on, the rollups go too.
    h.clock.advance(2 * 366 * DAY);
    await h.worker!.tick();
    await vi.waitFor(async () => {
      expect(await count('app_event_rollups', standard.id)).toBe(0);
      expect(await count('app_event_day_rollups', standard.id)).toBe(0);
      expect(await count('app_event_actor_sketches', standard.id)).toBe(0);
      expect(await count('app_events', longer.id)).toBe(0);
    }, WAIT);
  });

  it.runIf(usingPostgres)(
    'keeps raw events in month partitions made ahead of time on PostgreSQL',
    async () => {
      const partitions = async () =>
        (
          await sql<{ name: string }>`select c.relname as name from pg_inherits i
          join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
          where p.relname = 'app_events' and c.relnamespace = p.relnamespace`.execute(h.db)
        ).rows.map((r) => r.name);
      // The job that ran at the clock's last step made the partitions of its month and the next two.
      const month = h.clock.now().toISOString().slice(0, 7).replace('-', '_');
      await vi.waitFor(async () => expect(await partitions()).toContain(`app_events_${month}`), WAIT);
      const names = await partitions();
      expect(names).toContain('app_events_default');
    },
  );
});
