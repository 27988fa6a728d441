// Ingest of application events: single and batch, per-event rejections, dedupe (also under a race), API
// keys and site keys, CORS, the workspace header, limits and validation modes.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actorHash, decodeSketch, estimate } from '../src/modules/product-analytics/actor-sketch.ts';
import { awaitAggregateTurn } from '../src/modules/product-analytics/app-event-store.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
const ORIGIN = 'https://shop.example.com';
const URL = '/v1/insights/app-events';

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const ingest = (body: unknown, headers: Record<string, string> = {}) =>
  h.request('POST', URL, { token: ws.apiKey, body, headers });
const event = (n: number, extra: Record<string, unknown> = {}) => ({
  app: 'shop',
  event_name: 'order.created',
  object_type: 'order',
  object_id: `ord_${n}`,
  properties: { total_cents: n },
  ...extra,
});
const storedIn = async (workspaceId: string) =>
  h.db.selectFrom('app_events').selectAll().where('workspace_id', '=', workspaceId).execute();

async function site(body: Record<string, unknown> = {}) {
  const created = await h.request('POST', '/v1/insights/sites', {
    token: ws.apiKey,
    body: { name: 'Shop', allowed_origins: [ORIGIN], ...body },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.analytics_site as { id: string; site_key: string };
}

describe('ingest with an API key', () => {
  it('stores one event, with its context, user agent and source but no client address', async () => {
    const own = await h.workspace('Single');
    const res = await h.request('POST', URL, {
      token: own.apiKey,
      body: event(1, { user_id: 'usr_1', locale: 'en-GB', occurred_at: '2026-11-21T11:30:00+01:00' }),
      headers: { 'user-agent': 'test-agent/1.0', 'x-wos-workspace-id': own.id },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, duplicates: 0, rejected: [] });
    expect(res.body.request_id).toMatch(/^req_/);
    const [row] = await storedIn(own.id);
    expect(row).toMatchObject({
      app: 'shop',
      object_id: 'ord_1',
      user_id: 'usr_1',
      locale: 'en-GB',
      user_agent: 'test-agent/1.0',
      source_type: 'api_key',
      occurred_at: '2026-11-21T10:30:00.000Z',
      received_at: '2026-11-21T12:00:00.000Z',
    });
    expect(JSON.parse(row!.properties)).toEqual({ total_cents: 1 });
    expect(JSON.stringify(row)).not.toMatch(/127\.0\.0\.1/);
  });

  it('stores the valid events of a batch and reports the others by index', async () => {
    const own = await h.workspace('Batch');
    const res = await h.request('POST', URL, {
      token: own.apiKey,
      body: {
        events: [
          event(1),
          { ...event(2), app: '' },
          event(3, { event_name: 'line\nbreak' }),
          event(4, { occurred_at: '2026-11-21T13:30:00Z' }),
          event(5, { occurred_at: '2026-01-01T00:00:00Z' }),
          event(6, { extra: true }),
          event(7, { properties: { a: { b: { c: { d: { e: { f: 1 } } } } } } }),
          event(8, { properties: { big: 'x'.repeat(33 * 1024) } }),
          'not an event',
          event(10, { event_id: 'e-10' }),
        ],
      },
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.accepted).toBe(2);
    expect(res.body.rejected.map((r: any) => [r.index, r.field_errors[0].field])).toEqual([
      [1, 'app'],
      [2, 'event_name'],
      [3, 'occurred_at'],
      [4, 'occurred_at'],
      [5, 'extra'],
      [6, 'properties'],
      [7, 'properties'],
      [8, '(event)'],
    ]);
    expect((await storedIn(own.id)).map((r) => r.object_id).sort()).toEqual(['ord_1', 'ord_10']);
  });

  it('answers 400 naming each field when nothing can be stored, and stores nothing', async () => {
    const own = await h.workspace('Nothing');
    const single = await h.request('POST', URL, { token: own.apiKey, body: { app: 'shop' } });
    expect(single.status).toBe(400);
    expect(single.body.error.field_errors.map((e: any) => e.field)).toEqual([
      'event_name',
      'object_type',
      'object_id',
    ]);
    const batch = await h.request('POST', URL, { token: own.apiKey, body: { events: [{ app: 1 }] } });
    expect(batch.status).toBe(400);
    expect(batch.body.error.field_errors[0].field).toMatch(/^events\[0\]\./);
    const mixed = await h.request('POST', URL, { token: own.apiKey, body: { events: [event(1)], app: 'x' } });
    expect(mixed.status).toBe(400);
    expect(mixed.body.error.field_errors[0].field).toBe('app');
    const tooMany = await h.request('POST', URL, {
      token: own.apiKey,
      body: { events: Array.from({ length: 1001 }, (_, i) => event(i)) },
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.field_errors[0].field).toBe('events');
    // NUL anywhere refuses the whole call, naming where (PostgreSQL text cannot hold it).
    const nul = await h.request('POST', URL, {
      token: own.apiKey,
      body: { events: [event(1), event(2, { properties: { note: 'a\u0000b' } })] },
    });
    expect(nul.status).toBe(400);
    expect(nul.body.error.field_errors).toEqual([
      { field: 'events[1].properties.note', message: 'must not contain the NUL character (U+0000)' },
    ]);
    expect(await storedIn(own.id)).toEqual([]);
  });

  it('stores an event_id once: repeats in a batch, retries and racing retries are duplicates', async () => {
    const own = await h.workspace('Dedupe');
    const send = (events: unknown[]) => h.request('POST', URL, { token: own.apiKey, body: { events } });
    const first = await send([event(1, { event_id: 'a' }), event(1, { event_id: 'a' }), event(2)]);
    expect(first.body).toMatchObject({ accepted: 2, duplicates: 1 });
    const retry = await send([event(1, { event_id: 'a' }), event(3, { event_id: 'b' })]);
    expect(retry.body).toMatchObject({ accepted: 1, duplicates: 1 });
    const racing = Array.from({ length: 6 }, (_, i) => `race-${i}`);
    const results = await Promise.all(
      [0, 1, 2].map(() => send(racing.map((id, i) => event(100 + i, { event_id: id })))),
    );
    expect(results.map((r) => r.status)).toEqual([202, 202, 202]);
    expect(results.reduce((sum, r) => sum + r.body.accepted, 0)).toBe(racing.length);
    const rows = await storedIn(own.id);
    expect(rows.filter((r) => r.event_id?.startsWith('race-')).length).toBe(racing.length);
    expect(rows.length).toBe(2 + 1 + racing.length);
  });

  it.runIf(usingPostgres)(
    "queues a batch's aggregate writes behind another transaction of the workspace writing them",
    async () => {
      const own = await h.workspace('Queued');
      let sent: Promise<Awaited<ReturnType<typeof ingest>>> | undefined;
      await h.db.transaction().execute(async (trx) => {
        await awaitAggregateTurn(trx, own.id);
        sent = h.request('POST', URL, { token: own.apiKey, body: { events: [event(1), event(2)] } });
        // The batch waits on the workspace's turn, having stored its raw rows but no rollup.
        const waiters = async () =>
          (
            await sql<{ n: number }>`select count(*)::int as n from pg_locks
              where locktype = 'advisory' and not granted`.execute(h.db)
          ).rows[0]!.n;
        for (let tries = 0; tries < 200 && (await waiters()) === 0; tries++) {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
        expect(await waiters()).toBe(1);
      });
      const res = await sent!;
      expect(res.status, res.text).toBe(202);
      const rollups = await h.db
        .selectFrom('app_event_rollups')
        .select('object_id')
        .where('workspace_id', '=', own.id)
        .execute();
      expect(rollups.length).toBe(2);
    },
  );

  it('takes concurrent batches over the same objects without deadlocks, counting every event', async () => {
    const own = await h.workspace('Concurrent');
    // Each batch walks the same objects, actors and hours in its own order.
    const batch = (seed: number) =>
      Array.from({ length: 300 }, (_, i) => {
        const n = (i * (seed + 7) + seed) % 300;
        return event(n % 40, {
          event_name: `order.step${n % 3}`,
          user_id: `usr_${n % 25}`,
          occurred_at: `2026-11-21T${String(9 + (n % 3)).padStart(2, '0')}:15:00Z`,
        });
      });
    const results = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((seed) =>
        h.request('POST', URL, { token: own.apiKey, body: { events: batch(seed) } }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202]);
    const total = await h.db
      .selectFrom('app_event_rollups')
      .select((eb) => eb.fn.sum<number>('events').as('n'))
      .where('workspace_id', '=', own.id)
      .executeTakeFirstOrThrow();
    expect(Number(total.n)).toBe(6 * 300);
    const daily = await h.db
      .selectFrom('app_event_day_rollups')
      .select((eb) => eb.fn.sum<number>('events').as('n'))
      .where('workspace_id', '=', own.id)
      .executeTakeFirstOrThrow();
    expect(Number(daily.n)).toBe(6 * 300);
    // Every batch's actors merged into each object's daily sketch, none lost to a concurrent write-back.
    const expected = new Map<string, Set<string>>();
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      for (const e of batch(seed)) {
        const actors = expected.get(e.object_id) ?? new Set<string>();
        actors.add((e as Record<string, unknown>).user_id as string);
        expected.set(e.object_id, actors);
      }
    }
    const sketches = await h.db
      .selectFrom('app_event_actor_sketches')
      .select(['object_id', 'sketch'])
      .where('workspace_id', '=', own.id)
      .execute();
    expect(sketches.length).toBe(expected.size);
    for (const row of sketches) {
      expect(estimate(decodeSketch(row.sketch))).toBe(expected.get(row.object_id)!.size);
    }
  });

  it('keeps hourly and daily rollups and daily actor sketches in step with the stored events', async () => {
    const own = await h.workspace('Rollups');
    const at = (time: string, actor: string) =>
      event(1, { occurred_at: `2026-11-21T${time}Z`, user_id: actor, event_name: 'order.viewed' });
    await h.request('POST', URL, {
      token: own.apiKey,
      body: { events: [at('09:05:00', 'u1'), at('09:55:00', 'u2'), at('10:01:00', 'u1')] },
    });
    await h.request('POST', URL, { token: own.apiKey, body: at('09:30:00', 'u1') });
    const rollups = await h.db
      .selectFrom('app_event_rollups')
      .selectAll()
      .where('workspace_id', '=', own.id)
      .orderBy('hour')
      .execute();
    expect(rollups.map((r) => [r.hour, Number(r.events), r.first_seen, r.last_seen])).toEqual([
      ['2026-11-21T09:00:00.000Z', 3, '2026-11-21T09:05:00.000Z', '2026-11-21T09:55:00.000Z'],
      ['2026-11-21T10:00:00.000Z', 1, '2026-11-21T10:01:00.000Z', '2026-11-21T10:01:00.000Z'],
    ]);
    const totals = await h.db
      .selectFrom('app_event_hour_totals')
      .selectAll()
      .where('workspace_id', '=', own.id)
      .orderBy('hour')
      .execute();
    expect(totals.map((t) => [t.hour, t.app, t.event_name, Number(t.events)])).toEqual([
      ['2026-11-21T09:00:00.000Z', 'shop', 'order.viewed', 3],
      ['2026-11-21T10:00:00.000Z', 'shop', 'order.viewed', 1],
    ]);
    // The timeseries reads these totals without object filters and the rollups with one: the same counts.
    const series = async (extra: string) =>
      (
        await h.request(
          'GET',
          `/v1/insights/app-events/timeseries?from=2026-11-21T08:00:00Z&to=2026-11-21T11:00:00Z${extra}`,
          { token: own.apiKey },
        )
      ).body.points.map((p: { events: number }) => p.events);
    expect(await series('')).toEqual([0, 3, 1]);
    expect(await series('&object_type=order')).toEqual([0, 3, 1]);
    const days = await h.db
      .selectFrom('app_event_day_rollups')
      .selectAll()
      .where('workspace_id', '=', own.id)
      .execute();
    expect(days.map((d) => [d.day, d.event_name, Number(d.events), d.first_seen, d.last_seen])).toEqual([
      ['2026-11-21', 'order.viewed', 4, '2026-11-21T09:05:00.000Z', '2026-11-21T10:01:00.000Z'],
    ]);
    const sketches = await h.db
      .selectFrom('app_event_actor_sketches')
      .selectAll()
      .where('workspace_id', '=', own.id)
      .execute();
    expect(sketches.map((row) => row.day)).toEqual(['2026-11-21']);
    const sketch = decodeSketch(sketches[0]!.sketch);
    expect(sketch.kind === 'sparse' && [...sketch.hashes].sort()).toEqual(
      [actorHash('u1'), actorHash('u2')].sort(),
    );
  });

  it('checks the workspace header, the scope and the module', async () => {
    const other = await h.workspace('Other');
    const wrong = await ingest(event(1), { 'x-service-workspace-id': other.id });
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('workspace_not_found');
    expect((await ingest(event(1), { 'x-service-workspace-id': ws.id })).status).toBe(202);
    const reader = await h.createCredential(ws.id, 'api_key', ['analytics:read']);
    const denied = await h.request('POST', URL, { token: reader.token, body: event(1) });
    expect(denied.status).toBe(403);
    expect(denied.body.error.required_scope).toBe('analytics:write');
    const off = await h.workspace('Off', ['crm']);
    expect((await h.request('POST', URL, { token: off.apiKey, body: event(1) })).body.error.code).toBe(
      'module_not_enabled',
    );
  });

  it('refuses text/plain on other routes', async () => {
    const res = await h.request('POST', '/v1/contacts', {
      token: ws.apiKey,
      rawBody: '{"name":"x"}',
      headers: { 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(415);
  });
});

describe('ingest with a site key', () => {
  it('takes events from allowed origins, as JSON or text/plain, and grants their preflight', async () => {
    const { id, site_key } = await site();
    const preflight = await h.request('OPTIONS', `${URL}?site_key=${site_key}`, {
      headers: { origin: ORIGIN, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(preflight.headers.vary).toMatch(/Origin/);
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/x-wos-workspace-id/);
    const json = await h.request('POST', `${URL}?site_key=${site_key}`, {
      body: { events: [event(1)] },
      headers: { origin: ORIGIN, 'x-wos-workspace-id': ws.id },
    });
    expect(json.status, json.text).toBe(202);
    expect(json.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(json.headers['access-control-expose-headers']).toMatch(/retry-after/);
    const beacon = await h.request('POST', `${URL}?site_key=${site_key}`, {
      rawBody: JSON.stringify({ events: [event(2)] }),
      headers: { origin: ORIGIN, 'content-type': 'text/plain;charset=UTF-8' },
    });
    expect(beacon.status, beacon.text).toBe(202);
    const bearer = await h.request('POST', URL, {
      token: site_key,
      body: event(3),
      headers: { origin: ORIGIN },
    });
    expect(bearer.status).toBe(202);
    const rows = (await storedIn(ws.id)).filter((r) => r.source_id === id);
    expect(rows.map((r) => r.object_id).sort()).toEqual(['ord_1', 'ord_2', 'ord_3']);
    expect(rows.every((r) => r.source_type === 'site')).toBe(true);
  });

  it('refuses other origins, other workspaces, paused sites and apps the site does not list', async () => {
    const { id, site_key } = await site({ allowed_apps: ['shop'] });
    const path = `${URL}?site_key=${site_key}`;
    const evil = { origin: 'https://evil.example.com' };
    const preflight = await h.request('OPTIONS', path, { headers: evil });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    const post = await h.request('POST', path, { body: event(1), headers: evil });
    expect(post.status).toBe(403);
    expect(post.body.error.code).toBe('origin_not_allowed');
    expect(post.headers['access-control-allow-origin']).toBeUndefined();
    expect((await h.request('POST', path, { body: event(1) })).status).toBe(403);
    const other = await h.workspace('Elsewhere');
    const elsewhere = await h.request('POST', path, {
      body: event(1),
      headers: { origin: ORIGIN, 'x-wos-workspace-id': other.id },
    });
    expect(elsewhere.status).toBe(404);
    const app = await h.request('POST', path, {
      body: { events: [event(1), event(2, { app: 'blog' })] },
      headers: { origin: ORIGIN },
    });
    expect(app.body.accepted).toBe(1);
    expect(app.body.rejected[0]).toMatchObject({ index: 1, field_errors: [{ field: 'app' }] });
    const unknown = await h.request('POST', `${URL}?site_key=wos_site_nope`, {
      body: event(1),
      headers: { origin: ORIGIN },
    });
    expect(unknown.status).toBe(404);
    await h.request('PATCH', `/v1/insights/sites/${id}`, { token: ws.apiKey, body: { status: 'paused' } });
    const paused = await h.request('POST', path, { body: event(1), headers: { origin: ORIGIN } });
    expect(paused.status).toBe(403);
    expect(paused.body.error.code).toBe('credential_not_allowed');
  });

  it('limits events per minute and per day with 429 and Retry-After, storing nothing over the limit', async () => {
    const { id, site_key } = await site({ events_per_minute: 5, daily_quota: 8 });
    const send = (events: unknown[]) =>
      h.request('POST', `${URL}?site_key=${site_key}`, { body: { events }, headers: { origin: ORIGIN } });
    expect((await send([1, 2, 3].map((n) => event(n)))).status).toBe(202);
    const over = await send([4, 5, 6].map((n) => event(n)));
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // The page may read the refusal (and its Retry-After): the origin is granted on errors too.
    expect(over.headers['access-control-allow-origin']).toBe(ORIGIN);
    h.clock.advance(60_000);
    expect((await send([4, 5, 6, 7].map((n) => event(n)))).status).toBe(202);
    h.clock.advance(60_000);
    const quota = await send([event(8), event(9)]);
    expect(quota.status).toBe(429);
    expect(quota.body.error.message).toMatch(/daily quota/);
    expect((await storedIn(ws.id)).filter((r) => r.source_id === id).length).toBe(7);
  });
});

describe('validation modes', () => {
  it('warn stores events with their problems; enforce rejects them by index', async () => {
    const own = await h.workspace('Plans');
    const call = (method: string, url: string, body?: unknown) =>
      h.request(method, url, { token: own.apiKey, body });
    await call('POST', '/v1/analytics/properties', { name: 'total_cents', type: 'integer' });
    await call('POST', '/v1/analytics/events', {
      app: 'shop',
      name: 'order.created',
      properties: [{ name: 'total_cents', required: true }],
    });
    const off = await call('GET', '/v1/insights/app-events/settings');
    expect(off.body.settings).toEqual({ validation_mode: 'off', retention_days: 90 });
    const events = [event(1), event(2, { event_name: 'order.unknown' })];

    expect(
      (await call('PATCH', '/v1/insights/app-events/settings', { validation_mode: 'warn' })).status,
    ).toBe(200);
    const warned = await call('POST', URL, { events });
    expect(warned.body.accepted).toBe(2);
    const rows = await storedIn(own.id);
    const unknown = rows.find((r) => r.event_name === 'order.unknown')!;
    expect(JSON.parse(unknown.warnings!)[0].field).toBe('event_name');
    expect(rows.find((r) => r.event_name === 'order.created')!.warnings).toBeNull();

    await call('PATCH', '/v1/insights/app-events/settings', { validation_mode: 'enforce' });
    const enforced = await call('POST', URL, { events });
    expect(enforced.body.accepted).toBe(1);
    expect(enforced.body.rejected).toEqual([
      { index: 1, event_id: null, field_errors: [expect.objectContaining({ field: 'event_name' })] },
    ]);
  });
});
