// Object Analytics reads: the grouped view (filters, windows, sorts, cursors), the timeseries (zero-fill,
// local days across DST) and one object's drill-down, per workspace, on REST and MCP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let a: TestWorkspace;
let b: TestWorkspace;

interface Sent {
  app: string;
  event_name: string;
  object_type: string;
  object_id: string;
  occurred_at: string;
  properties?: Record<string, unknown>;
  user_id?: string;
  anonymous_id?: string;
}

/** An event of `app:object_type:object_id`. */
const ev = (object: string, event_name: string, occurred_at: string, extra: Partial<Sent> = {}): Sent => {
  const [app, object_type, object_id] = object.split(':') as [string, string, string];
  return { app, object_type, object_id, event_name, occurred_at, ...extra };
};

/** Sends the events through ingest, as a server-side sender would (an API key with analytics:write). */
async function seed(ws: TestWorkspace, events: Sent[]): Promise<void> {
  const res = await h.request('POST', '/v1/insights/app-events', { token: ws.apiKey, body: { events } });
  expect([res.status, res.body.accepted, res.body.rejected], res.text).toEqual([202, events.length, []]);
}
const get = (ws: TestWorkspace, url: string) => h.request('GET', url, { token: ws.apiKey });
const fields = (res: { body: any }) => res.body.error?.field_errors?.map((e: any) => e.field);
const keys = (objects: any[]) => objects.map((o) => `${o.app}:${o.object_type}:${o.object_id}`);

beforeAll(async () => {
  h = await Harness.start();
  // 12:30 on 2026-11-21: relative windows end at 13:00 (the current hour included).
  h.clock.current = new Date('2026-11-21T12:30:00.000Z');
  a = await h.workspace('Analytics A');
  b = await h.workspace('Analytics B');
  await seed(a, [
    ev('shop:order:ord_1', 'order.created', '2026-11-20T10:15:00Z', { user_id: 'u1' }),
    ev('shop:order:ord_1', 'order.paid', '2026-11-20T11:05:00Z', { user_id: 'u1' }),
    ev('shop:order:ord_1', 'order.paid', '2026-11-21T09:00:00Z', { user_id: 'u2' }),
    ev('shop:order:ord_1', 'order.viewed', '2026-11-21T12:10:00Z', { anonymous_id: 'anon_1' }),
    ev('shop:order:ord_1', 'order.viewed', '2026-11-21T12:20:00Z', { user_id: 'u1' }),
    ev('shop:order:ord_2', 'order.created', '2026-11-19T08:00:00Z', { user_id: 'u3' }),
    ev('shop:order:ord_2', 'order.paid', '2026-11-19T08:30:00Z', { user_id: 'u3' }),
    ev('shop:cart:cart_9', 'cart.opened', '2026-11-21T11:45:00Z', { anonymous_id: 'anon_2' }),
    ev('blog:post:p_1', 'post.read', '2026-11-18T07:00:00Z', { user_id: 'u1' }),
    // Outside 7d, inside 30d.
    ev('blog:post:p_old', 'post.read', '2026-11-05T07:00:00Z', { user_id: 'u9' }),
  ]);
  // The same object key in another workspace: never counted in A.
  await seed(b, [
    ev('shop:order:ord_1', 'order.paid', '2026-11-21T10:00:00Z', { user_id: 'intruder' }),
    ev('shop:secret:s_1', 'secret.seen', '2026-11-21T10:00:00Z'),
  ]);
});
afterAll(() => h.close());

describe('query_object_analytics', () => {
  it('groups by app, object type and object ID with counts, actors, first/last seen and top events', async () => {
    const res = await get(a, '/v1/insights/app-events');
    expect(res.status).toBe(200);
    expect(res.body.from).toBe('2026-11-14T12:00:00.000Z');
    expect(res.body.to).toBe('2026-11-21T13:00:00.000Z');
    expect(res.body.next_cursor).toBeUndefined();
    expect(keys(res.body.objects)).toEqual([
      'shop:order:ord_1',
      'shop:order:ord_2',
      'blog:post:p_1',
      'shop:cart:cart_9',
    ]);
    expect(res.body.objects[0]).toEqual({
      app: 'shop',
      object_type: 'order',
      object_id: 'ord_1',
      events: 5,
      // u1 (two days), u2, anon_1: distinct per window, not per day.
      unique_actors: 3,
      first_seen: '2026-11-20T10:15:00.000Z',
      last_seen: '2026-11-21T12:20:00.000Z',
      top_events: [
        { event_name: 'order.paid', events: 2 },
        { event_name: 'order.viewed', events: 2 },
        { event_name: 'order.created', events: 1 },
      ],
    });
    expect(res.body.objects[3]).toMatchObject({ events: 1, unique_actors: 1 });
  });

  it('filters by app, object type, object ID and event name', async () => {
    const app = await get(a, '/v1/insights/app-events?app=blog');
    expect(keys(app.body.objects)).toEqual(['blog:post:p_1']);
    const type = await get(a, '/v1/insights/app-events?object_type=order');
    expect(keys(type.body.objects)).toEqual(['shop:order:ord_1', 'shop:order:ord_2']);
    const id = await get(a, '/v1/insights/app-events?object_id=ord_2');
    expect(keys(id.body.objects)).toEqual(['shop:order:ord_2']);
    const name = await get(a, '/v1/insights/app-events?event_name=order.paid');
    expect(name.body.objects.map((o: any) => [o.object_id, o.events, o.top_events])).toEqual([
      ['ord_1', 2, [{ event_name: 'order.paid', events: 2 }]],
      ['ord_2', 1, [{ event_name: 'order.paid', events: 1 }]],
    ]);
    const none = await get(a, '/v1/insights/app-events?app=shop&object_type=post');
    expect(none.body.objects).toEqual([]);
  });

  it('takes a relative window or from/to, aligned to whole UTC hours, never both', async () => {
    const hour = await get(a, '/v1/insights/app-events?window=1h');
    expect([hour.body.from, hour.body.to]).toEqual(['2026-11-21T11:00:00.000Z', '2026-11-21T13:00:00.000Z']);
    expect(hour.body.objects.map((o: any) => [o.object_id, o.events])).toEqual([
      ['ord_1', 2],
      ['cart_9', 1],
    ]);
    const month = await get(a, '/v1/insights/app-events?window=30d&app=blog');
    expect(keys(month.body.objects)).toEqual(['blog:post:p_1', 'blog:post:p_old']);
    const range = await get(a, '/v1/insights/app-events?from=2026-11-20T10:59:00Z&to=2026-11-20T11:01:00Z');
    expect([range.body.from, range.body.to]).toEqual([
      '2026-11-20T10:00:00.000Z',
      '2026-11-20T12:00:00.000Z',
    ]);
    expect(range.body.objects.map((o: any) => [o.object_id, o.events])).toEqual([['ord_1', 2]]);
    const open = await get(a, '/v1/insights/app-events?from=2026-11-21T09:00:00Z');
    expect(open.body.to).toBe('2026-11-21T13:00:00.000Z');

    const both = await get(a, '/v1/insights/app-events?window=7d&from=2026-11-20T00:00:00Z');
    expect([both.status, both.body.error.code, fields(both)]).toEqual([400, 'validation_failed', ['from']]);
    expect(fields(await get(a, '/v1/insights/app-events?to=2026-11-20T00:00:00Z'))).toEqual(['from']);
    const backwards = await get(
      a,
      '/v1/insights/app-events?from=2026-11-20T00:00:00Z&to=2026-11-19T00:00:00Z',
    );
    expect(fields(backwards)).toEqual(['to']);
    expect(fields(await get(a, '/v1/insights/app-events?window=2d'))).toEqual(['window']);
    expect(fields(await get(a, '/v1/insights/app-events?from=yesterday'))).toEqual(['from']);
    expect(fields(await get(a, '/v1/insights/app-events?sort=name'))).toEqual(['sort']);
    expect(fields(await get(a, '/v1/insights/app-events?colour=red'))).toEqual(['colour']);
  });

  it('sorts by last_seen, newest first', async () => {
    const res = await get(a, '/v1/insights/app-events?sort=last_seen');
    expect(keys(res.body.objects)).toEqual([
      'shop:order:ord_1',
      'shop:cart:cart_9',
      'shop:order:ord_2',
      'blog:post:p_1',
    ]);
  });

  it('keeps tenants apart and needs analytics:read', async () => {
    const other = await get(b, '/v1/insights/app-events');
    expect(other.body.objects.map((o: any) => [o.object_id, o.events, o.unique_actors])).toEqual([
      ['ord_1', 1, 1],
      ['s_1', 1, 0],
    ]);
    const mine = await get(a, '/v1/insights/app-events?object_id=ord_1');
    expect(mine.body.objects[0].events).toBe(5);
    expect((await get(a, '/v1/insights/app-events?object_type=secret')).body.objects).toEqual([]);

    const { token } = await h.createCredential(a.id, 'api_key', ['crm:read', 'analytics:write']);
    for (const url of [
      '/v1/insights/app-events',
      '/v1/insights/app-events/timeseries',
      '/v1/insights/app-events/objects/shop/order/ord_1',
    ]) {
      const refused = await h.request('GET', url, { token });
      expect([refused.status, refused.body.error.code, refused.body.error.required_scope]).toEqual([
        403,
        'missing_required_scope',
        'analytics:read',
      ]);
    }
  });

  it('is an MCP tool marked as an extension', async () => {
    const call = await h.callTool(a.mcpToken, 'query_object_analytics', { app: 'shop', limit: 1 });
    expect(call.result.isError).toBeFalsy();
    expect(keys(call.body.objects)).toEqual(['shop:order:ord_1']);
    expect(call.body.next_cursor).toEqual(expect.any(String));
    const next = await h.callTool(a.mcpToken, 'query_object_analytics', {
      app: 'shop',
      limit: 1,
      cursor: call.body.next_cursor,
    });
    expect(keys(next.body.objects)).toEqual(['shop:order:ord_2']);
    const listed = await h.mcp(
      a.mcpToken,
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
      { query: '?modules=product_analytics_bi' },
    );
    const names = ['query_object_analytics', 'get_app_event_timeseries', 'get_app_event_object'];
    const tools = listed.body.result.tools.filter((t: any) => names.includes(t.name));
    expect(tools.map((t: any) => [t.name, t._meta.extension, t.annotations.readOnlyHint]).sort()).toEqual(
      names.map((n) => [n, true, true]).sort(),
    );
  });
});

describe('top events, first seen and totals over partial days', () => {
  // Whole UTC days read daily rollups; the window's partial first and last days read hourly ones.
  const window = 'from=2026-11-19T10:00:00Z&to=2026-11-21T12:00:00Z';
  let c: TestWorkspace;
  beforeAll(async () => {
    c = await h.workspace('Partial days');
    await seed(c, [
      ev('shop:item:i_1', 'a.x', '2026-11-19T09:30:00Z'), // before the window, same day
      ev('shop:item:i_1', 'a.x', '2026-11-19T10:15:00Z'),
      ev('shop:item:i_1', 'b.y', '2026-11-19T23:59:00Z'),
      ev('shop:item:i_1', 'a.x', '2026-11-20T05:00:00Z'),
      ev('shop:item:i_1', 'b.y', '2026-11-20T18:00:00Z'),
      ev('shop:item:i_1', 'a.x', '2026-11-21T11:59:00Z'),
      ev('shop:item:i_1', 'b.y', '2026-11-21T12:05:00Z'), // after the window, same day
      ev('shop:item:i_1', 'c.z', '2026-11-21T13:10:00Z'), // ahead of the clock, after the window
    ]);
  });

  it('counts exactly what falls in the window, in the grouped view and the drill-down', async () => {
    const grouped = await get(c, `/v1/insights/app-events?${window}`);
    expect(grouped.body.objects).toEqual([
      {
        app: 'shop',
        object_type: 'item',
        object_id: 'i_1',
        events: 5,
        unique_actors: 0,
        first_seen: '2026-11-19T10:15:00.000Z',
        last_seen: '2026-11-21T11:59:00.000Z',
        top_events: [
          { event_name: 'a.x', events: 3 },
          { event_name: 'b.y', events: 2 },
        ],
      },
    ]);
    const object = await get(c, `/v1/insights/app-events/objects/shop/item/i_1?${window}`);
    expect(object.body.object.totals).toEqual({
      events: 5,
      unique_actors: 0,
      first_seen: '2026-11-19T10:15:00.000Z',
      last_seen: '2026-11-21T11:59:00.000Z',
    });
    expect(object.body.object.by_event).toEqual([
      { event_name: 'a.x', events: 3 },
      { event_name: 'b.y', events: 2 },
    ]);
    // Within one day: hourly rollups only.
    const day = await get(c, '/v1/insights/app-events?from=2026-11-21T00:00:00Z&to=2026-11-21T12:00:00Z');
    expect(day.body.objects[0]).toMatchObject({ events: 1, top_events: [{ event_name: 'a.x', events: 1 }] });
    // With an event name: that name only, on every part of the window.
    const named = await get(c, `/v1/insights/app-events?${window}&event_name=b.y`);
    expect(named.body.objects[0]).toMatchObject({ events: 2, first_seen: '2026-11-19T23:59:00.000Z' });
  });
});

describe('query_object_analytics paging', () => {
  let ws: TestWorkspace;
  const expected: { key: string; events: number; last: string }[] = [];

  beforeAll(async () => {
    ws = await h.workspace('Analytics paging');
    const events: Sent[] = [];
    // 23 objects, counts 1..4 (many ties), spread over hours: every order has ties on both sorts.
    for (let i = 0; i < 23; i++) {
      const id = `obj_${String(i).padStart(2, '0')}`;
      const count = (i % 4) + 1;
      const hour = 10 - (i % 5);
      const last = `2026-11-21T${String(hour).padStart(2, '0')}:00:00.000Z`;
      for (let n = 0; n < count; n++) events.push(ev(`app:thing:${id}`, 'thing.done', last));
      expected.push({ key: `app:thing:${id}`, events: count, last });
    }
    await seed(ws, events);
  });

  async function pageThrough(query: string, limit: number) {
    const seen: any[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const url = `/v1/insights/app-events?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const res = await get(ws, url);
      expect(res.status, res.text).toBe(200);
      expect(res.body.objects.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.objects);
      cursor = res.body.next_cursor;
      pages++;
      // The window is the cursor's: a page read a day later still reads the first page's window (a fresh
      // 24h window would hold none of these events).
      h.clock.advance(86_400_000);
    } while (cursor);
    h.clock.current = new Date('2026-11-21T12:30:00.000Z');
    return { seen, pages };
  }

  it('pages through every object once, by events then object key', async () => {
    const { seen, pages } = await pageThrough('window=24h', 5);
    expect(pages).toBe(5);
    const order = [...expected].sort((x, y) => y.events - x.events || (x.key < y.key ? -1 : 1));
    expect(keys(seen)).toEqual(order.map((e) => e.key));
    expect(seen.map((o) => o.events)).toEqual(order.map((e) => e.events));
  });

  it('pages through every object once, by last_seen then object key', async () => {
    const { seen } = await pageThrough('window=24h&sort=last_seen', 4);
    const order = [...expected].sort((x, y) =>
      x.last === y.last ? (x.key < y.key ? -1 : 1) : x.last < y.last ? 1 : -1,
    );
    expect(keys(seen)).toEqual(order.map((e) => e.key));
  });

  it('binds the cursor to the filters', async () => {
    const first = await get(ws, '/v1/insights/app-events?window=24h&limit=3');
    const cursor = first.body.next_cursor as string;
    for (const query of [
      'window=7d',
      'window=24h&sort=last_seen',
      'window=24h&app=app',
      'from=2026-11-21T00:00:00Z',
    ]) {
      const res = await get(ws, `/v1/insights/app-events?${query}&limit=3&cursor=${cursor}`);
      expect([res.status, fields(res)], query).toEqual([400, ['cursor']]);
    }
    // The page size is not a filter.
    expect((await get(ws, `/v1/insights/app-events?window=24h&limit=10&cursor=${cursor}`)).status).toBe(200);
    const forged = Buffer.from(JSON.stringify({ o: 'x', f: 'y', k: [] })).toString('base64url');
    expect(fields(await get(ws, `/v1/insights/app-events?cursor=${forged}`))).toEqual(['cursor']);
    const drill = await get(ws, `/v1/insights/app-events/objects/app/thing/obj_00?cursor=${cursor}`);
    expect(fields(drill)).toEqual(['cursor']);
  });
});

describe('get_app_event_timeseries', () => {
  it('zero-fills hourly buckets of a short window', async () => {
    const res = await get(a, '/v1/insights/app-events/timeseries?window=24h&app=shop');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ interval: 'hour', timezone: 'UTC', from: '2026-11-20T12:00:00.000Z' });
    expect(res.body.points).toHaveLength(25);
    const nonZero = res.body.points.filter((p: any) => p.events > 0);
    expect(nonZero).toEqual([
      { start: '2026-11-21T09:00:00.000Z', events: 1 },
      { start: '2026-11-21T11:00:00.000Z', events: 1 },
      { start: '2026-11-21T12:00:00.000Z', events: 2 },
    ]);
    expect(res.body.points[0]).toEqual({ start: '2026-11-20T12:00:00.000Z', events: 0 });
  });

  it('sums to the grouped view and defaults to day buckets over 48 hours', async () => {
    const res = await get(a, '/v1/insights/app-events/timeseries');
    expect(res.body.interval).toBe('day');
    // 2026-11-14T12:00Z to 2026-11-21T13:00Z touches 8 UTC days.
    expect(res.body.points.map((p: any) => p.start)).toEqual(
      [14, 15, 16, 17, 18, 19, 20, 21].map((d) => `2026-11-${d}T00:00:00.000Z`),
    );
    expect(res.body.points.map((p: any) => p.events)).toEqual([0, 0, 0, 0, 1, 2, 2, 4]);
    const grouped = await get(a, '/v1/insights/app-events');
    const total = grouped.body.objects.reduce((sum: number, o: any) => sum + o.events, 0);
    expect(res.body.points.reduce((sum: number, p: any) => sum + p.events, 0)).toBe(total);
    const paid = await get(
      a,
      '/v1/insights/app-events/timeseries?event_name=order.paid&interval=hour&window=7d',
    );
    expect(paid.body.points).toHaveLength(169);
    expect(paid.body.points.reduce((sum: number, p: any) => sum + p.events, 0)).toBe(3);
  });

  it('starts day buckets at local midnight across a DST change', async () => {
    const ws = await h.workspace('Analytics DST');
    await seed(ws, [
      ev('web:page:home', 'page.viewed', '2026-11-01T03:30:00Z'), // Oct 31, 23:30 EDT
      ev('web:page:home', 'page.viewed', '2026-11-01T04:30:00Z'), // Nov 1, 00:30 EDT
      // Nov 1, 13:40 EST; in Kolkata Nov 2, 00:10, but its hour (18:00Z) starts on Nov 1 at 23:30.
      ev('web:page:home', 'page.viewed', '2026-11-01T18:40:00Z'),
      ev('web:page:home', 'page.viewed', '2026-11-02T04:30:00Z'), // Nov 1, 23:30 EST (a 25-hour day)
      ev('web:page:home', 'page.viewed', '2026-11-02T05:30:00Z'), // Nov 2, 00:30 EST
    ]);
    const url = '/v1/insights/app-events/timeseries?from=2026-10-31T00:00:00Z&to=2026-11-03T00:00:00Z';
    const res = await get(ws, `${url}&interval=day&timezone=america/new_york`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.timezone).toBe('America/New_York');
    expect(res.body.points).toEqual([
      { start: '2026-10-30T04:00:00.000Z', events: 0 },
      { start: '2026-10-31T04:00:00.000Z', events: 1 },
      { start: '2026-11-01T04:00:00.000Z', events: 3 },
      { start: '2026-11-02T05:00:00.000Z', events: 1 },
    ]);
    const utc = await get(ws, `${url}&interval=day`);
    expect(utc.body.points.map((p: any) => p.events)).toEqual([0, 3, 2]);
    // A half-hour offset: an hourly rollup belongs to the local day its hour starts in.
    const kolkata = await get(ws, `${url}&interval=day&timezone=Asia/Kolkata`);
    expect(kolkata.body.points).toEqual([
      { start: '2026-10-30T18:30:00.000Z', events: 0 },
      { start: '2026-10-31T18:30:00.000Z', events: 3 },
      { start: '2026-11-01T18:30:00.000Z', events: 2 },
      { start: '2026-11-02T18:30:00.000Z', events: 0 },
    ]);
  });

  it('refuses a bad zone and too many buckets', async () => {
    const zone = await get(a, '/v1/insights/app-events/timeseries?timezone=Mars/Olympus');
    expect([zone.status, fields(zone)]).toEqual([400, ['timezone']]);
    const hours = await get(a, '/v1/insights/app-events/timeseries?from=2026-01-01T00:00:00Z&interval=hour');
    expect([hours.status, fields(hours)]).toEqual([400, ['interval']]);
    expect(hours.body.error.field_errors[0].message).toMatch(/use day/);
    expect(
      (await get(a, '/v1/insights/app-events/timeseries?window=90d&interval=hour')).body.points,
    ).toHaveLength(2161);
    const days = await get(a, '/v1/insights/app-events/timeseries?from=2000-01-01T00:00:00Z&interval=day');
    expect([days.status, fields(days)]).toEqual([400, ['from']]);
  });
});

describe('get_app_event_object', () => {
  it('answers totals, counts per event name and the raw events, newest first, page by page', async () => {
    const base = '/v1/insights/app-events/objects/shop/order/ord_1';
    const first = await get(a, `${base}?limit=2`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.object).toEqual({
      app: 'shop',
      object_type: 'order',
      object_id: 'ord_1',
      totals: {
        events: 5,
        unique_actors: 3,
        first_seen: '2026-11-20T10:15:00.000Z',
        last_seen: '2026-11-21T12:20:00.000Z',
      },
      by_event: [
        { event_name: 'order.paid', events: 2 },
        { event_name: 'order.viewed', events: 2 },
        { event_name: 'order.created', events: 1 },
      ],
    });
    expect(first.body.events.map((e: any) => e.occurred_at)).toEqual([
      '2026-11-21T12:20:00.000Z',
      '2026-11-21T12:10:00.000Z',
    ]);
    expect(first.body.events[1]).toMatchObject({
      event_name: 'order.viewed',
      anonymous_id: 'anon_1',
      user_id: null,
      properties: {},
      warnings: null,
    });
    const seen = [...first.body.events];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await get(a, `${base}?limit=2&cursor=${cursor}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.events);
      cursor = page.body.next_cursor;
    }
    expect(seen.map((e) => e.event_name)).toEqual([
      'order.viewed',
      'order.viewed',
      'order.paid',
      'order.paid',
      'order.created',
    ]);
    expect(new Set(seen.map((e) => e.id)).size).toBe(5);
    const paid = await get(a, `${base}?event_name=order.paid`);
    expect(paid.body.object.totals.events).toBe(2);
    expect(paid.body.events.map((e: any) => e.user_id)).toEqual(['u2', 'u1']);
  });

  it('keeps properties and odd object IDs', async () => {
    const ws = await h.workspace('Analytics odd IDs');
    await seed(ws, [
      ev('shop:order:a/b c', 'order.created', '2026-11-21T08:00:00Z', {
        properties: { total_cents: 4200, tags: ['x'] },
      }),
    ]);
    const res = await get(ws, `/v1/insights/app-events/objects/shop/order/${encodeURIComponent('a/b c')}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.events[0].properties).toEqual({ total_cents: 4200, tags: ['x'] });
  });

  it('counts objects whose keys hold quotes, commas, braces, backslashes and NULL', async () => {
    // PostgreSQL reads a page's objects from key arrays: none of these may split or lose a key.
    const ws = await h.workspace('Analytics array-literal IDs');
    const odd = ['a "b", c', '{x,y}', 'back\\slash', 'NULL', 'é ü'];
    const events: Sent[] = [];
    odd.forEach((id, i) => {
      for (let n = 0; n <= i; n++) {
        events.push({
          app: 'shop',
          object_type: 'ty,pe',
          object_id: id,
          event_name: n % 2 ? 'odd.seen' : 'even.seen',
          occurred_at: `2026-11-2${n % 2}T0${n}:30:00Z`,
          user_id: `u${n}`,
        });
      }
    });
    await seed(ws, events);
    const res = await get(ws, '/v1/insights/app-events?window=30d');
    expect(res.status, res.text).toBe(200);
    expect(res.body.objects.map((o: any) => [o.object_id, o.events, o.unique_actors, o.top_events])).toEqual(
      [...odd].reverse().map((id) => {
        const count = odd.indexOf(id) + 1;
        const odds = Math.floor(count / 2);
        const top = [
          { event_name: 'even.seen', events: count - odds },
          { event_name: 'odd.seen', events: odds },
        ].filter((e) => e.events > 0);
        return [id, count, count, top];
      }),
    );
  });

  it('answers zeros for a known object outside the window, 404 for an unknown one or another tenant', async () => {
    const quiet = await get(a, '/v1/insights/app-events/objects/blog/post/p_old?window=24h');
    expect(quiet.status).toBe(200);
    expect(quiet.body.object.totals).toEqual({
      events: 0,
      unique_actors: 0,
      first_seen: null,
      last_seen: null,
    });
    expect([quiet.body.object.by_event, quiet.body.events]).toEqual([[], []]);
    const unknown = await get(a, '/v1/insights/app-events/objects/blog/post/p_never');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'resource_not_found']);
    const foreign = await get(a, '/v1/insights/app-events/objects/shop/secret/s_1');
    expect(foreign.status).toBe(404);
    const theirs = await get(b, '/v1/insights/app-events/objects/shop/order/ord_1');
    expect(theirs.body.object.totals.events).toBe(1);
    const mcp = await h.callTool(a.mcpToken, 'get_app_event_object', {
      app: 'shop',
      object_type: 'order',
      object_id: 'ord_2',
    });
    expect(mcp.body.object.totals.events).toBe(2);
  });
});
