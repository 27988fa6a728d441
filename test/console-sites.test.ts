// Console stories (SQLite; see console-smoke.test.ts for PostgreSQL): an Analytics Site created from its
// empty state, its snippet copied, events counted, its key rotated, paused, edited and archived; and a key
// without bi scopes that sees no BI page. Every page is checked with axe and saved as a screenshot.
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
const ORIGIN = 'https://shop.example.com';

describe.skipIf(usingPostgres)('console: Analytics Sites and scopes', () => {
  beforeAll(async () => {
    s = await startConsole({ clock: new MutableClock(new Date('2026-11-21T12:30:00.000Z')) });
    page = s.page;
    ws = await s.h.workspace('Sites');
  });
  afterAll(() => s?.close());

  it(
    'creates a site, copies its snippet, counts its events, rotates, pauses, edits and archives it',
    async () => {
      await signIn(page, s.base, ws.apiKey);
      await page.getByRole('link', { name: 'Analytics Sites' }).click();
      await page.getByText('No sites yet').waitFor();
      await look(page, 'sites-empty');
      await page.getByRole('link', { name: 'create one' }).click();
      await page.getByLabel('Name').fill('Storefront');
      await page.getByLabel('Allowed origins').fill(ORIGIN);
      await page.getByLabel('Apps').fill('shop');
      await look(page, 'site-new');
      await page.getByRole('button', { name: 'Create site' }).click();
      await page.getByRole('heading', { name: 'Storefront' }).waitFor();
      const siteId = page.url().split('/').pop()!;
      expect(siteId).toMatch(/^asite_/);
      const key = (await page.locator('.site-key').textContent())!;
      expect(key).toMatch(/^wos_site_/);

      await page.getByRole('button', { name: 'Copy snippet' }).click();
      await page.getByText('Snippet copied').waitFor();
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      expect(copied).toContain(`<script src="${s.base}/sdk/wos-analytics.js"></script>`);
      expect(copied).toContain(`"siteKey":"${key}"`);
      expect(copied).toContain(`"workspaceId":"${ws.id}"`);

      const events = [1, 2, 3].map((i) => ({
        app: 'shop',
        event_name: 'page.viewed',
        object_type: 'page',
        object_id: `p${i}`,
      }));
      const sent = await s.h.request('POST', `/v1/insights/app-events?site_key=${key}`, {
        body: { events },
        headers: { origin: ORIGIN },
      });
      expect(sent.status, sent.text).toBe(202);
      await page.getByRole('button', { name: 'Refresh counts' }).click();
      await eventually(() => page.locator('.usage-hour').textContent()).toBe('3');
      expect(await page.locator('.usage-day').textContent()).toBe('3');
      await look(page, 'site');

      await page.getByRole('button', { name: 'Rotate key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Rotate the site key' });
      await dialog.getByLabel('Overlap in hours').fill('2');
      await look(page, 'site-rotate');
      await dialog.getByRole('button', { name: 'Rotate now' }).click();
      await eventually(() => page.locator('.site-key').textContent()).not.toBe(key);
      await page.getByText(`The previous key ${key} works until`).waitFor();
      expect(await page.locator('.snippet').inputValue()).not.toContain(key);

      await page.getByRole('button', { name: 'Pause site' }).click();
      await page.getByRole('button', { name: 'Resume site' }).waitFor();
      const stored = await s.h.request('GET', `/v1/insights/sites/${siteId}`, { token: ws.apiKey });
      expect(stored.body.analytics_site.status).toBe('paused');

      await page.getByLabel('Name').fill('Storefront EU');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('heading', { name: 'Storefront EU' }).waitFor();

      await page.getByRole('link', { name: 'Analytics Sites' }).first().click();
      await eventually(() => page.locator('tbody tr').count()).toBe(1);
      await look(page, 'sites');
      await page.getByRole('link', { name: 'Storefront EU' }).click();
      await page.getByRole('button', { name: 'Archive site' }).click();
      await page
        .getByRole('dialog', { name: 'Archive this site?' })
        .getByRole('button', { name: 'Archive' })
        .click();
      await page.getByText('No sites yet').waitFor();
      expect(new URL(page.url()).pathname).toBe('/console/sites');
    },
    STORY,
  );

  it(
    'a key without bi scopes sees no BI page, and a page it opens names the missing scope',
    async () => {
      const narrow = await s.h.createCredential(ws.id, 'api_key', ['analytics:read', 'analytics:write']);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, s.base, narrow.token);
      const nav = page.getByRole('navigation', { name: 'Console' });
      expect(await nav.getByRole('link').allTextContents()).toEqual(['Object Analytics', 'Analytics Sites']);
      expect(await page.getByRole('button', { name: 'Promote to BI' }).count()).toBe(0);
      await page.goto(`${s.base}/console/bi/reports`);
      await page.getByText('This API key lacks the scope bi:read').waitFor();
      await look(page, 'no-bi-scope');
    },
    STORY,
  );
});
