// The console as served, on both databases: the landing page, the page's Content-Security-Policy, hashed
// assets cached as immutable (and gzipped), the first-load budget, and one story in Chromium (sign in,
// Object Analytics with its chart, an insight view refreshed) against the real service.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleFirstLoad } from '../src/surfaces/console/console-build.ts';
import {
  type ConsoleSession,
  eventually,
  look,
  STORY,
  signIn,
  startConsole,
} from './helpers/console-browser.ts';
import { MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const db = usingPostgres ? 'postgres' : 'sqlite';
let s: ConsoleSession;
let page: Page;
let ws: TestWorkspace;

beforeAll(async () => {
  s = await startConsole({ clock: new MutableClock(new Date('2026-11-21T12:30:00.000Z')) });
  page = s.page;
  ws = await s.h.workspace('Smoke');
  const events = ['ord_1', 'ord_1', 'ord_2'].map((object_id, i) => ({
    app: 'shop',
    event_name: 'order.viewed',
    object_type: 'order',
    object_id,
    occurred_at: `2026-11-21T0${i + 1}:00:00Z`,
    user_id: `u${i}`,
  }));
  const res = await s.h.request('POST', '/v1/insights/app-events', { token: ws.apiKey, body: { events } });
  expect(res.status, res.text).toBe(202);
});
afterAll(() => s?.close());

describe(`console smoke (${db})`, () => {
  it('serves the landing page, the console with a strict CSP, and immutable hashed assets', async () => {
    const landing = await s.h.request('GET', '/');
    expect(landing.status).toBe(200);
    for (const link of ['href="/console"', 'href="/docs"', 'href="/openapi.json"', '/mcp'])
      expect(landing.text).toContain(link);

    const shell = await s.h.request('GET', '/console/insights/objects?app=shop');
    expect(shell.status).toBe(200);
    const csp = String(shell.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(shell.headers['cache-control']).toBe('no-cache');
    const assets = [...shell.text.matchAll(/\/console\/assets\/(app-[A-Z0-9]+\.(?:js|css))/g)].map(
      (m) => m[1],
    );
    expect(assets).toHaveLength(2);
    expect(shell.text).not.toMatch(/<script>|<script [^>]*>[^<]/); // no inline script
    for (const asset of assets) {
      const res = await s.h.request('GET', `/console/assets/${asset}`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(res.headers['content-encoding']).toBe('gzip');
      const again = await s.h.request('GET', `/console/assets/${asset}`, {
        headers: { 'if-none-match': String(res.headers.etag) },
      });
      expect(again.status).toBe(304);
    }
    expect((await s.h.request('GET', '/console/assets/app-NOPE.js')).body.error.code).toBe('route_not_found');
  });

  it('keeps the first load of /console within 120 KB of JavaScript and CSS, gzipped', async () => {
    const { gzip } = await consoleFirstLoad();
    expect(gzip).toBeLessThanOrEqual(120 * 1024);
  });

  it(
    'signs in, shows Object Analytics with its chart, and refreshes a promoted insight view',
    async () => {
      await signIn(page, s.base, ws.apiKey);
      const rows = page.locator('table:has(caption:has-text("Objects")) tbody tr');
      await eventually(() => rows.count()).toBe(2);
      await eventually(() => page.locator('.chart canvas').count()).toBeGreaterThan(0);
      await look(page, `smoke-${db}-objects`);
      await page.getByRole('button', { name: 'Promote to BI' }).click();
      await page.getByRole('dialog').getByLabel('Name').fill('Orders');
      await page.getByRole('dialog').getByRole('button', { name: 'Save insight view' }).click();
      await page.getByRole('button', { name: 'Refresh now' }).click();
      await eventually(() => page.locator('.last-refreshed').textContent()).toMatch(/2026/);
      await look(page, `smoke-${db}-view`);
    },
    STORY,
  );
});
