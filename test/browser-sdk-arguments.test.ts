// The browser SDK never throws into its host page (Debian's Chromium against the real service): a call it
// cannot send is dropped with a console warning and the page's script goes on; an event tracked without an
// object is about the page (object_type page, object_id the path), and wos.page() sends a page view with the
// page's URL and referrer (a single-page app's previous route after the first). SQLite or PostgreSQL.
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveClock, launchChromium, listenOnLoopback } from './helpers/chromium.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';
import { pageServer } from './helpers/loopback-servers.ts';

const WAIT = { timeout: 30_000, interval: 100 };

let h: Harness;
let ws: TestWorkspace;
let service: string;
let siteKey: string;
let shop: Awaited<ReturnType<typeof pageServer>>;
let browser: BrowserContext;
let closeBrowser: (() => Promise<void>) | undefined;

beforeAll(async () => {
  h = await Harness.start({ clock: new LiveClock() });
  service = await listenOnLoopback(h);
  ws = await h.workspace();
  shop = await pageServer();
  const created = await h.request('POST', '/v1/insights/sites', {
    token: ws.apiKey,
    body: { name: 'Shop', allowed_origins: [shop.origin], allowed_apps: ['shop'] },
  });
  expect(created.status, created.text).toBe(201);
  siteKey = created.body.analytics_site.site_key;
  ({ browser, close: closeBrowser } = await launchChromium());
});

afterAll(async () => {
  await closeBrowser?.();
  await shop?.close();
  await h?.close();
});

describe(`browser SDK arguments in Chromium (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('never throws into the page: bad calls warn, pageview and wos.page() are about the page', async () => {
    const init = { endpoint: service, siteKey, app: 'shop' };
    shop.pages.set(
      '/spa.html',
      `<!doctype html><title>spa</title><script src="${service}/sdk/wos-analytics.js"></script>
<script>
  window.ran = [];
  wos.track('early.clicked'); ran.push('before init');
  wos.init(${JSON.stringify(init)});
  wos.track('pageview'); ran.push('pageview');
  wos.track(); wos.track('x.y', 'sku_1'); wos.track('x.y', { object_type: 'product' });
  wos.track('x.y', { properties: 5 }); var loop = {}; loop.self = loop; wos.track('x.y', { properties: loop });
  wos.identify(42); ran.push('bad calls');
  wos.page(); ran.push('page');
</script>`,
    );
    const page = await browser.newPage();
    const warnings: string[] = [];
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'warning') warnings.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${shop.origin}/spa.html`, { referer: 'https://www.example.org/' });
    expect(await page.evaluate(() => (window as any).ran)).toEqual([
      'before init',
      'pageview',
      'bad calls',
      'page',
    ]);
    // A route of a single-page app: its page view's referrer is the previous page view's URL.
    await page.evaluate(() => {
      history.pushState({}, '', '/catalog/shoes?color=red');
      (window as any).wos.page({ section: 'shoes' });
      return (window as any).wos.flush();
    });
    const rows = () =>
      h.db
        .selectFrom('app_events')
        .select(['event_name', 'object_type', 'object_id', 'page_url', 'referrer', 'properties'])
        .where('workspace_id', '=', ws.id)
        .where('object_type', '=', 'page')
        .execute();
    await expect.poll(async () => (await rows()).length, WAIT).toBe(3);
    const spa = `${shop.origin}/spa.html`;
    // Tracked in the same millisecond, maybe: compared as a set.
    const stored = (await rows()).map((r) => ({ ...r, properties: JSON.parse(r.properties!) }));
    expect(stored).toHaveLength(3);
    expect(stored).toEqual(
      expect.arrayContaining([
        {
          event_name: 'pageview',
          object_type: 'page',
          object_id: '/spa.html',
          page_url: spa,
          referrer: 'https://www.example.org/',
          properties: {},
        },
        {
          event_name: 'page.viewed',
          object_type: 'page',
          object_id: '/spa.html',
          page_url: spa,
          referrer: 'https://www.example.org/',
          properties: {},
        },
        {
          event_name: 'page.viewed',
          object_type: 'page',
          object_id: '/catalog/shoes',
          page_url: `${shop.origin}/catalog/shoes?color=red`,
          referrer: spa,
          properties: { section: 'shoes' },
        },
      ]),
    );
    expect(errors).toEqual([]);
    for (const expected of [
      'call wos.init()',
      'the event name must be a string',
      'the second argument must be an object',
      'object_type and object_id must both be strings',
      'properties must be an object',
      'properties must be JSON',
      'wos.identify() takes a string',
    ]) {
      expect(
        warnings.some((w) => w.startsWith('[wos]') && w.includes(expected)),
        expected,
      ).toBe(true);
    }
    await page.close();
  });
});
