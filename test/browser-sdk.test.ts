// The browser SDK in a real browser (Debian's Chromium, driven by playwright-core; no browser download)
// against the real service on a real port: pages on other loopback origins load /sdk/wos-analytics.js, track,
// and leave; every event is stored exactly once, the preflight is granted to the site's origin only, and a
// batch retried after a lost answer is deduplicated. Runs on the harness's database (SQLite or PostgreSQL).
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock, launchChromium, listenOnLoopback } from './helpers/chromium.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { type LoopbackServer, pageServer, recordingProxy } from './helpers/loopback-servers.ts';

const WAIT = { timeout: 30_000, interval: 100 };

let h: Harness;
let ws: TestWorkspace;
let service: string;
let siteKey: string;
let shop: Awaited<ReturnType<typeof pageServer>>;
let elsewhere: Awaited<ReturnType<typeof pageServer>>;
let proxy: Awaited<ReturnType<typeof recordingProxy>>;
let browser: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.start({ clock: new LiveClock() });
  service = await listenOnLoopback(h);
  ws = await h.workspace();
  shop = await pageServer();
  elsewhere = await pageServer();
  proxy = await recordingProxy(service);
  const created = await h.request('POST', '/v1/insights/sites', {
    token: ws.apiKey,
    body: { name: 'Shop', allowed_origins: [shop.origin], allowed_apps: ['shop'] },
  });
  expect(created.status, created.text).toBe(201);
  siteKey = created.body.analytics_site.site_key;
  expect(siteKey).toMatch(/^wos_site_/);

  ({ browser, close: closeBrowser } = await launchChromium());
  // Each page logs its beacons to sessionStorage, which outlives the page within the tab.
  await browser.addInitScript(() => {
    const send = navigator.sendBeacon.bind(navigator);
    navigator.sendBeacon = (url, data) => {
      const accepted = send(url, data);
      const log = JSON.parse(sessionStorage.getItem('beacons') ?? '[]');
      log.push({ url, type: (data as Blob).type, accepted });
      sessionStorage.setItem('beacons', JSON.stringify(log));
      return accepted;
    };
  });
});

afterAll(async () => {
  await closeBrowser?.();
  const servers: (LoopbackServer | undefined)[] = [shop, elsewhere, proxy];
  await Promise.all(servers.map((server) => server?.close()));
  await h?.close();
});

/** A page of `server` loading the SDK from the service and sending to `endpoint`. */
async function open(server: typeof shop, endpoint: string): Promise<Page> {
  const init = { endpoint, siteKey, workspaceId: ws.id, app: 'shop' };
  server.pages.set(
    '/shop.html',
    `<!doctype html><html><head><meta charset="utf-8"><title>shop</title></head><body>
<script src="${service}/sdk/wos-analytics.js"></script>
<script>wos.init(${JSON.stringify(init)});</script></body></html>`,
  );
  server.pages.set('/next.html', '<!doctype html><title>next</title><p>left the shop</p>');
  const page = await browser.newPage();
  await page.goto(`${server.origin}/shop.html`);
  expect(await page.evaluate(() => typeof (window as any).wos?.track)).toBe('function');
  return page;
}

/** Tracks count events (object IDs from `from`); resolves with their event_ids (read from the SDK's stored queue before any is sent). */
function track(page: Page, objectType: string, count: number, from = 0): Promise<string[]> {
  return page.evaluate(
    async ([type, n, start]) => {
      for (let i = start; i < start + n; i++) {
        (window as any).wos.track(`${type}.viewed`, {
          object_type: type,
          object_id: `${type}_${i}`,
          properties: { i },
        });
      }
      await Promise.resolve(); // the SDK writes its queue a microtask later
      const queued: { event_id: string; object_type: string }[] = JSON.parse(
        localStorage.getItem('wos_queue')!,
      );
      return queued.filter((e) => e.object_type === type).map((e) => e.event_id);
    },
    [objectType, count, from] as const,
  );
}

const stored = (objectType: string) =>
  h.db
    .selectFrom('app_events')
    .select(['event_id', 'object_id', 'source_type', 'page_url', 'user_id', 'anonymous_id', 'user_agent'])
    .where('workspace_id', '=', ws.id)
    .where('object_type', '=', objectType)
    .execute();

describe('browser SDK in Chromium', () => {
  it('stores every event once: 20 by fetch at once, the rest by sendBeacon when the page is left', async () => {
    const page = await open(shop, service);
    const fetched: string[] = [];
    page.on('requestfinished', (request) => {
      if (request.method() === 'POST' && request.url().startsWith(`${service}/v1/insights/app-events`))
        fetched.push(request.headers()['content-type']);
    });
    await page.evaluate(() => (window as any).wos.identify('usr_browser'));
    // A batch of 20 goes at once, by fetch as JSON: a preflighted request, so the preflight was granted.
    const first = await track(page, 'product', 20);
    await expect.poll(async () => (await stored('product')).length, WAIT).toBe(20);
    await expect.poll(() => fetched, WAIT).toContain('application/json');
    // 5 more wait for the 2 s timer; leaving the page (pagehide) hands them to sendBeacon.
    const rest = await track(page, 'product', 5, 20);
    await page.goto(`${shop.origin}/next.html`);

    await expect.poll(async () => (await stored('product')).length, WAIT).toBeGreaterThanOrEqual(25);
    const rows = await stored('product');
    const ids = [...new Set([...first, ...rest])];
    expect(ids).toHaveLength(25);
    expect(rows.map((e) => e.event_id).sort()).toEqual(ids.sort());
    expect(new Set(rows.map((e) => e.object_id)).size).toBe(25);
    expect(rows.every((e) => e.source_type === 'site' && e.user_id === 'usr_browser')).toBe(true);
    expect(new Set(rows.map((e) => e.anonymous_id)).size).toBe(1);
    expect(rows[0].page_url).toBe(`${shop.origin}/shop.html`);
    expect(rows[0].user_agent).toContain('Chrome');
    const beacons = JSON.parse((await page.evaluate(() => sessionStorage.getItem('beacons'))) ?? '[]');
    expect(beacons).toContainEqual({
      url: `${service}/v1/insights/app-events?site_key=${siteKey}`,
      type: 'text/plain',
      accepted: true,
    });
    await page.close();
  });

  it('grants the preflight to the site origin only', async () => {
    const preflight = (origin: string) =>
      fetch(`${service}/v1/insights/app-events?site_key=${siteKey}`, {
        method: 'OPTIONS',
        headers: {
          origin,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-wos-workspace-id',
        },
      });
    const granted = await preflight(shop.origin);
    expect(granted.status).toBeLessThan(300);
    expect(granted.headers.get('access-control-allow-origin')).toBe(shop.origin);
    expect(granted.headers.get('access-control-allow-methods')).toContain('POST');
    expect(granted.headers.get('access-control-allow-headers')?.toLowerCase()).toContain(
      'x-wos-workspace-id',
    );
    const refused = await preflight(elsewhere.origin);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a page on a disallowed origin: the fetch fails, the beacon gets 403, nothing is stored', async () => {
    const page = await open(elsewhere, proxy.origin);
    const direct = await page.evaluate(async (url) => {
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            events: [{ app: 'shop', event_name: 'blocked.viewed', object_type: 'blocked', object_id: 'b' }],
          }),
        });
        return response.status;
      } catch (error) {
        return String(error);
      }
    }, `${proxy.origin}/v1/insights/app-events?site_key=${siteKey}`);
    expect(direct).toMatch(/TypeError: Failed to fetch/);

    await track(page, 'blocked', 3);
    await page.goto(`${elsewhere.origin}/next.html`);
    const fromElsewhere = () => proxy.calls.filter((c) => c.origin === elsewhere.origin);
    await expect
      .poll(
        () => fromElsewhere().some((c) => c.method === 'POST' && c.contentType?.startsWith('text/plain')),
        WAIT,
      )
      .toBe(true);
    for (const call of fromElsewhere()) {
      expect(call.status, `${call.method} ${call.path}`).toBe(403);
      expect(call.headers['access-control-allow-origin']).toBeUndefined();
    }
    expect(fromElsewhere().some((c) => c.method === 'OPTIONS')).toBe(true);
    expect(await stored('blocked')).toEqual([]);
    await page.close();
  });

  it('stores a batch once when its answer was lost and the SDK sent it again', async () => {
    const page = await open(shop, proxy.origin);
    proxy.failNext = 1; // the service stores the batch; the browser gets 503 and retries it
    const tracked = await track(page, 'cart', 20);
    const posts = () => proxy.calls.filter((c) => c.method === 'POST' && c.origin === shop.origin);
    await expect.poll(() => posts().some((c) => !c.failed && c.body?.duplicates === 20), WAIT).toBe(true);

    const [lost, retried] = posts();
    expect(lost.failed).toBe(true);
    expect(lost.body).toMatchObject({ accepted: 20, duplicates: 0 });
    expect(retried.body).toMatchObject({ accepted: 0, duplicates: 20, rejected: [] });
    const idsOf = (call: typeof lost) => call.request.events.map((e: any) => e.event_id);
    expect(idsOf(lost)).toEqual(tracked);
    expect(idsOf(retried)).toEqual(tracked);
    const rows = await stored('cart');
    expect(rows.map((e) => e.event_id).sort()).toEqual([...tracked].sort());
    await page.close();
  });
});
