// The browser SDK's delivery rules, run in a fake page (a vm context with scripted fetch, sendBeacon, timers,
// clock and localStorage): batching, event_id kept across retries and reloads, backoff and Retry-After,
// dropping on a refusal, the bounded localStorage queue, the beacon on pagehide, anonymous and session IDs.
// The real browser against the real service is test/browser-sdk.test.ts.
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSdk } from '../src/surfaces/sdk/sdk-routes.ts';

let code: string;
beforeAll(async () => {
  code = (await buildSdk()).iife.code;
});

const ENDPOINT = 'https://wos.example.com';
const INGEST = `${ENDPOINT}/v1/insights/app-events?site_key=wos_site_test`;

interface Sent {
  url: string;
  headers: Record<string, string>;
  events: any[];
}

/** One page load over a storage that survives "reloads" (pass the previous page's). */
function page(storage = new Map<string, string>()) {
  const timers = new Map<number, { fn: () => void; ms: number }>();
  const listeners: Record<string, (() => void)[]> = {};
  const listen = (type: string, fn: () => void) => {
    listeners[type] ??= [];
    listeners[type].push(fn);
  };
  const requests: Sent[] = [];
  const beacons: { url: string; type: string; events: any[] }[] = [];
  const warnings: string[] = [];
  const answers: (() => Response)[] = [];
  let timerId = 0;
  const document = {
    referrer: 'https://ref.example.org/',
    visibilityState: 'visible',
    addEventListener: (type: string, fn: () => void) => listen(`document:${type}`, fn),
  };
  const context = vm.createContext({
    console: { warn: (message: string) => warnings.push(message) },
    crypto: globalThis.crypto,
    Blob,
    Intl,
    location: { href: 'https://shop.example.com/cart?x=1' },
    document,
    navigator: {
      language: 'en-GB',
      sendBeacon: (url: string, blob: Blob) => {
        beacons.push({ url, type: blob.type, events: [] });
        const entry = beacons.at(-1)!;
        void blob.text().then((text) => (entry.events = JSON.parse(text).events));
        return true;
      },
    },
    localStorage: {
      getItem: (key: string) => storage.get(key) ?? null,
      setItem: (key: string, value: string) => storage.set(key, value),
    },
    addEventListener: listen,
    setTimeout: (fn: () => void, ms: number) => {
      timers.set(++timerId, { fn, ms });
      return timerId;
    },
    clearTimeout: (id: number) => timers.delete(id),
    fetch: async (url: string, init: { headers: Record<string, string>; body: string }) => {
      requests.push({ url, headers: init.headers, events: JSON.parse(init.body).events });
      const answer = answers.shift();
      if (answer) return answer();
      return Response.json(
        { accepted: requests.at(-1)!.events.length, duplicates: 0, rejected: [] },
        { status: 202 },
      );
    },
  });
  vm.runInContext(code, context);
  vm.runInContext('let now = Date.parse("2026-11-22T10:00:00Z"); Date.now = () => now;', context);
  const wos = vm.runInContext('wos', context);
  return {
    wos,
    storage,
    requests,
    beacons,
    warnings,
    /** Answers for the next fetches, in order; afterwards every fetch gets a 202. */
    answer: (...next: (() => Response)[]) => answers.push(...next),
    advance: (ms: number) => vm.runInContext(`now += ${ms}`, context),
    /** Delays of the pending timers. */
    pending: () => [...timers.values()].map((t) => t.ms),
    /** Fires the pending timers, then waits for the send they started. */
    async fireTimers() {
      const due = [...timers.values()];
      timers.clear();
      for (const timer of due) timer.fn();
      await wos.flush();
    },
    fire: (type: string) => {
      if (type === 'visibilitychange') document.visibilityState = 'hidden';
      for (const fn of listeners[type === 'visibilitychange' ? 'document:visibilitychange' : type] ?? [])
        fn();
    },
    queued: () => JSON.parse(storage.get('wos_queue') ?? '[]') as any[],
  };
}

const init = (p: ReturnType<typeof page>) =>
  p.wos.init({ endpoint: `${ENDPOINT}/`, siteKey: 'wos_site_test', workspaceId: 'ws_1', app: 'shop' });
const track = (p: ReturnType<typeof page>, n: number, from = 0) => {
  for (let i = from; i < from + n; i++)
    p.wos.track('item.viewed', { object_type: 'item', object_id: `item_${i}`, properties: { i } });
};

describe('browser SDK delivery', () => {
  it('sends 20 events at once, fewer after 2 s, with the context filled in', async () => {
    const p = page();
    init(p);
    p.wos.identify('usr_7');
    track(p, 20);
    await p.wos.flush();
    expect(p.requests).toHaveLength(1);
    const [request] = p.requests;
    expect(request.url).toBe(INGEST);
    expect(request.headers).toEqual({ 'content-type': 'application/json', 'x-wos-workspace-id': 'ws_1' });
    expect(request.events).toHaveLength(20);
    expect(new Set(request.events.map((e) => e.event_id)).size).toBe(20);
    expect(request.events[3]).toEqual({
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      app: 'shop',
      event_name: 'item.viewed',
      object_type: 'item',
      object_id: 'item_3',
      properties: { i: 3 },
      occurred_at: '2026-11-22T10:00:00.000Z',
      user_id: 'usr_7',
      anonymous_id: expect.any(String),
      session_id: expect.any(String),
      page_url: 'https://shop.example.com/cart?x=1',
      referrer: 'https://ref.example.org/',
      locale: 'en-GB',
      timezone: expect.any(String),
    });
    expect(p.queued()).toEqual([]);

    track(p, 3, 20);
    expect(p.requests).toHaveLength(1);
    expect(p.pending()).toEqual([2000]);
    await p.fireTimers();
    expect(p.requests).toHaveLength(2);
    expect(p.requests[1].events.map((e) => e.object_id)).toEqual(['item_20', 'item_21', 'item_22']);
  });

  it('retries network errors, 5xx and 429 with the same event_ids, honouring Retry-After', async () => {
    const p = page();
    init(p);
    p.answer(
      () => {
        throw new TypeError('Failed to fetch');
      },
      () => new Response('{}', { status: 503 }),
      () => new Response('{}', { status: 429, headers: { 'retry-after': '30' } }),
    );
    track(p, 2);
    await p.wos.flush();
    expect(p.requests).toHaveLength(1);
    expect(p.queued()).toHaveLength(2); // kept while undelivered
    // Backoff with jitter: within [half, whole] of 1 s, then of 2 s.
    expect(p.pending()[0]).toBeGreaterThanOrEqual(500);
    expect(p.pending()[0]).toBeLessThanOrEqual(1000);
    p.advance(1000);
    await p.fireTimers();
    expect(p.pending()[0]).toBeGreaterThanOrEqual(1000);
    expect(p.pending()[0]).toBeLessThanOrEqual(2000);
    p.advance(2000);
    await p.fireTimers();
    expect(p.requests).toHaveLength(3);
    expect(p.pending()[0]).toBeGreaterThanOrEqual(30_000);
    // An explicit flush during the wait does not jump Retry-After.
    await p.wos.flush();
    expect(p.requests).toHaveLength(3);
    p.advance(33_000);
    await p.fireTimers();
    expect(p.requests).toHaveLength(4);
    const ids = p.requests.map((r) => r.events.map((e) => e.event_id).join());
    expect(new Set(ids).size).toBe(1);
    expect(p.queued()).toEqual([]);
    expect(p.pending()).toEqual([]);
  });

  it('drops a batch refused with another 4xx, warning once', async () => {
    const p = page();
    init(p);
    const refused = () => Response.json({ error: { code: 'forbidden' } }, { status: 403 });
    p.answer(refused, refused);
    track(p, 1);
    await p.wos.flush();
    track(p, 1, 1);
    await p.wos.flush();
    expect(p.requests).toHaveLength(2);
    expect(p.queued()).toEqual([]);
    expect(p.pending()).toEqual([]);
    expect(p.warnings).toEqual(['[wos] events dropped: HTTP 403 forbidden']);
  });

  it('keeps unsent events in localStorage, bounded, and sends them after a reload', async () => {
    const first = page();
    init(first);
    first.answer(...Array.from({ length: 60 }, () => () => new Response('{}', { status: 502 })));
    track(first, 1005);
    await Promise.resolve(); // written a microtask later
    const kept = first.queued();
    expect(kept).toHaveLength(1000);
    expect(kept[0].object_id).toBe('item_5'); // the oldest went first
    expect(first.warnings).toContain('[wos] over 1000 unsent events: the oldest are dropped');

    const second = page(first.storage);
    init(second);
    await second.wos.flush();
    const resent = second.requests.flatMap((r) => r.events);
    expect(resent.map((e) => e.event_id)).toEqual(kept.map((e) => e.event_id));
    expect(resent.map((e) => e.occurred_at)).toEqual(kept.map((e) => e.occurred_at));
    expect(second.requests.every((r) => r.events.length <= 20)).toBe(true);
    expect(second.queued()).toEqual([]);
  });

  it('hands what is left to sendBeacon on pagehide and on visibilitychange to hidden', async () => {
    const p = page();
    init(p);
    track(p, 5);
    p.fire('pagehide');
    expect(p.requests).toEqual([]);
    expect(p.beacons).toHaveLength(1);
    expect(p.beacons[0].url).toBe(INGEST);
    expect(p.beacons[0].type).toBe('text/plain');
    await expect.poll(() => p.beacons[0].events.length).toBe(5);
    expect(p.queued()).toEqual([]);

    track(p, 2, 5);
    p.fire('visibilitychange');
    expect(p.beacons).toHaveLength(2);
    await expect.poll(() => p.beacons[1].events.map((e) => e.object_id)).toEqual(['item_5', 'item_6']);
    p.fire('pagehide'); // nothing left: no empty beacon
    expect(p.beacons).toHaveLength(2);
  });

  it('keeps the anonymous_id across reloads and starts a new session after 30 idle minutes', async () => {
    const first = page();
    init(first);
    track(first, 1);
    first.advance(29 * 60_000);
    track(first, 1, 1);
    first.advance(31 * 60_000);
    track(first, 1, 2);
    await first.wos.flush();
    const [a, b, c] = first.requests[0].events;
    expect(b.anonymous_id).toBe(a.anonymous_id);
    expect(b.session_id).toBe(a.session_id);
    expect(c.session_id).not.toBe(b.session_id);

    const second = page(first.storage);
    init(second);
    second.advance(61 * 60_000); // a minute after the last event: the session goes on
    track(second, 1);
    await second.wos.flush();
    expect(second.requests[0].events[0].anonymous_id).toBe(a.anonymous_id);
    expect(second.requests[0].events[0].session_id).toBe(c.session_id);
    expect(second.requests[0].events[0].user_id).toBeUndefined();
  });
});
