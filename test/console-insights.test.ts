// Console stories in Chromium against the real service (SQLite; the PostgreSQL run has its own smoke story,
// console-smoke.test.ts): sign in and out, Object Analytics (filters, window, sort and reload from the
// URL, freezing the window, drill-down), Promote to BI -> the insight view -> refresh, and an API error
// showing its request_id. Every page is checked with axe and saved as a screenshot.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ConsoleSession,
  eventually,
  look,
  STORY,
  signIn,
  startConsole,
} from './helpers/console-browser.ts';
import { MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let s: ConsoleSession;
let page: Page;
let ws: TestWorkspace;

const ev = (object: string, event_name: string, occurred_at: string, user: string, properties = {}) => {
  const [app, object_type, object_id] = object.split(':');
  return { app, object_type, object_id, event_name, occurred_at, user_id: user, properties };
};

describe.skipIf(usingPostgres)('console: insights stories', () => {
  beforeAll(async () => {
    s = await startConsole({ clock: new MutableClock(new Date('2026-11-21T12:30:00.000Z')) });
    page = s.page;
    ws = await s.h.workspace('Northwind');
    const events = [
      ev('shop:order:ord_1', 'order.created', '2026-11-21T09:15:00Z', 'u1', { total: 42 }),
      ev('shop:order:ord_1', 'order.paid', '2026-11-21T10:00:00Z', 'u2', { method: 'card' }),
      ev('shop:order:ord_1', 'order.viewed', '2026-11-21T12:10:00Z', 'u1'),
      ev('shop:order:ord_2', 'order.created', '2026-11-18T08:00:00Z', 'u3'),
      ev('shop:order:ord_2', 'order.paid', '2026-11-18T08:30:00Z', 'u3'),
      ev('blog:post:p_1', 'post.read', '2026-11-20T07:00:00Z', 'u1'),
    ];
    const res = await s.h.request('POST', '/v1/insights/app-events', { token: ws.apiKey, body: { events } });
    expect(res.status, res.text).toBe(202);
  });
  afterAll(() => s?.close());

  it(
    'signs in with a key kept in sessionStorage only, and signs out',
    async () => {
      await page.goto(`${s.base}/console`);
      await look(page, 'sign-in');
      await page.getByLabel('API key').fill('wos_live_not-a-real-key');
      await page.getByLabel('API key').press('Enter');
      const alert = page.getByRole('alert');
      await eventually(() => alert.textContent()).toMatch(/request_id req_/);
      await look(page, 'sign-in-error');

      await signIn(page, s.base, ws.apiKey);
      expect(page.url()).toBe(`${s.base}/console/insights/objects`);
      const storage = await page.evaluate(() => ({
        session: Object.values(sessionStorage),
        local: Object.values(localStorage),
        cookie: document.cookie,
      }));
      expect(storage.session).toEqual([ws.apiKey]);
      expect(storage.local.join()).not.toContain(ws.apiKey);
      expect(storage.cookie).toBe('');
      expect(page.url()).not.toContain(ws.apiKey);

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API key').waitFor();
      expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
      await page.reload();
      await page.getByLabel('API key').waitFor();
    },
    STORY,
  );

  it(
    'filters Object Analytics, changes the window and sort, and reloads the same view from the URL',
    async () => {
      await signIn(page, s.base, ws.apiKey);
      const rows = page.locator('table:has(caption:has-text("Objects")) tbody tr');
      await eventually(() => rows.count()).toBe(3);
      await look(page, 'object-analytics');
      // Dark theme from the system's preference (axe checks its contrast too), and the toggle back to light.
      await page.emulateMedia({ colorScheme: 'dark' });
      await eventually(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      await look(page, 'object-analytics-dark');
      await page.getByRole('button', { name: 'Dark theme' }).click();
      await eventually(() => page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      expect(await page.getByRole('button', { name: 'Dark theme' }).getAttribute('aria-pressed')).toBe(
        'false',
      );

      await page.getByLabel('App').fill('shop');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await eventually(() => page.url()).toContain('app=shop');
      await eventually(() => rows.count()).toBe(2);

      await page.getByRole('combobox', { name: /^Window/ }).selectOption('24h');
      await eventually(() => page.url()).toContain('window=24h');
      await eventually(() => rows.count()).toBe(1);
      await page.getByLabel('Sort by').selectOption('last_seen');
      await eventually(() => page.url()).toContain('sort=last_seen');
      const before = await rows.allTextContents();
      expect(before[0]).toContain('ord_1');
      // The chart drew its bars and its table lists the same events.
      await eventually(() => page.locator('.chart canvas').count()).toBeGreaterThan(0);

      await page.reload();
      await eventually(() => rows.count()).toBe(1);
      expect(await rows.allTextContents()).toEqual(before);
      expect(await page.getByLabel('App').inputValue()).toBe('shop');
      expect(await page.getByRole('combobox', { name: /^Window/ }).inputValue()).toBe('24h');
      expect(await page.getByLabel('Sort by').inputValue()).toBe('last_seen');

      await page.getByRole('button', { name: 'Freeze to dates' }).click();
      await eventually(() => page.url()).toContain('from=2026-11-20T12');
      expect(page.url()).not.toContain('window=');
      await eventually(() => rows.count()).toBe(1);
      await look(page, 'object-analytics-frozen');
    },
    STORY,
  );

  it(
    'drills down into an object: totals, events by name and raw events with properties',
    async () => {
      await page.goto(`${s.base}/console/insights/objects?app=shop&window=7d`);
      await page.getByRole('link', { name: 'ord_1' }).click();
      await page.getByRole('heading', { name: 'Object ord_1' }).waitFor();
      expect(page.url()).toContain('/console/insights/objects/shop/order/ord_1?');
      const totals = page.getByLabel('Totals', { exact: true });
      await eventually(() => totals.textContent()).toMatch(/Events3Unique actors2/);
      const recent = page.locator('table:has(caption:has-text("Recent events")) tbody tr');
      await eventually(() => recent.count()).toBe(3);
      expect(await recent.allTextContents()).toContainEqual(expect.stringContaining('{"total":42}'));
      await look(page, 'object-drill-down');
    },
    STORY,
  );

  it(
    'promotes the slice to BI, opens the view, refreshes it, and shows when it last refreshed',
    async () => {
      await page.goto(`${s.base}/console/insights/objects?app=shop&window=7d`);
      await page.getByRole('button', { name: 'Promote to BI' }).click();
      const dialog = page.getByRole('dialog', { name: 'Promote to BI' });
      await dialog.getByLabel('Name').fill('Shop objects');
      await dialog.getByLabel('Question it answers').fill('Which shop objects are busiest?');
      await look(page, 'promote-dialog');
      await dialog.getByRole('button', { name: 'Save insight view' }).click();
      await page.getByRole('heading', { name: 'Shop objects' }).waitFor();
      expect(page.url()).toMatch(/\/console\/insights\/views\/biv_/);
      expect(await page.locator('.last-refreshed').textContent()).toBe('Never');
      await page.getByRole('button', { name: 'Refresh now' }).click();
      await eventually(() => page.locator('.last-refreshed').textContent()).toMatch(/2026/);
      const result = page.locator('table:has(caption:has-text("Shop objects")) tbody tr');
      await eventually(() => result.count()).toBe(2);
      await look(page, 'insight-view');

      // Insight Builder: the definition, previewed before it is saved.
      await page.getByRole('link', { name: 'Edit in Insight Builder' }).click();
      await page.getByRole('combobox', { name: /^Window/ }).selectOption('30d');
      await page.getByRole('checkbox', { name: 'last_seen' }).check();
      await page.getByRole('button', { name: 'Preview' }).click();
      const preview = page.locator('table:has(caption:has-text("Preview")) tbody tr');
      await eventually(() => preview.count()).toBe(2);
      expect(await page.locator('table:has(caption:has-text("Preview")) thead').textContent()).toContain(
        'last_seen',
      );
      await look(page, 'insight-builder');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByText('Object Analytics: shop (30d)').waitFor();

      await page.getByRole('link', { name: 'Insight Views' }).first().click();
      const row = page.locator('tr', { hasText: 'Shop objects' });
      await eventually(() => row.textContent()).toMatch(/Which shop objects are busiest\?.*Yes.*Succeeded/);
      await look(page, 'insight-views');
    },
    STORY,
  );

  it('shows an API error with its message and request_id', async () => {
    await page.goto(`${s.base}/console/insights/views/biv_missing`);
    const alert = page.getByRole('alert');
    await eventually(() => alert.textContent()).toMatch(/resource_not_found.*request_id req_/);
    await look(page, 'api-error');
  });
});
