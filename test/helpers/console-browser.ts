// Story tests of the console: the real service on a real port, seeded through its API, and Debian's
// Chromium driven by playwright-core (no browser download). One browser per test file; pages are reused.
// Every page visited is checked with axe-core (no serious or critical violation) and saved as a screenshot
// under build/console-screenshots/ (ignored by git) for a person to look at.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type net from 'node:net';
import path from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { Harness, type MutableClock } from './harness.ts';

const require = createRequire(import.meta.url);
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
export const SCREENSHOTS = path.resolve('build/console-screenshots');

export interface ConsoleSession {
  h: Harness;
  base: string;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  close: () => Promise<void>;
}

export async function startConsole(
  options: { clock?: MutableClock; env?: Record<string, string> } = {},
): Promise<ConsoleSession> {
  const h = await Harness.start(options);
  await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(h.service.app.server.address() as net.AddressInfo).port}`;
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({
    timezoneId: 'Europe/Berlin',
    locale: 'en-GB',
    viewport: { width: 1280, height: 900 },
    acceptDownloads: true,
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
  const page = await context.newPage();
  // A page error or a CSP violation fails the story at the next check.
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text()))
      problems.push(`console error: ${message.text()}`);
  });
  (page as Page & { problems: string[] }).problems = problems;
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    h,
    base,
    browser,
    context,
    page,
    close: async () => {
      await browser.close().catch(() => {});
      await h.close();
    },
  };
}

/** A story's time limit: a few pages, each with a screenshot and an axe pass, on a shared machine. */
export const STORY = 120_000;

/** expect.poll with room for a loaded machine. */
export const eventually = <T>(read: () => T | Promise<T>) =>
  expect.poll(read, { timeout: 15_000, interval: 100 });

/** Errors the page reported (uncaught exceptions, CSP violations) since it opened. */
export const pageProblems = (page: Page) => (page as Page & { problems: string[] }).problems;

export async function signIn(page: Page, base: string, key: string): Promise<void> {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByLabel('API key').press('Enter');
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** axe-core on the page as it is now: no violation of impact serious or critical. */
export async function checkAxe(page: Page, what: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () => {
    const result = await (window as any).axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.id} (${v.impact}): ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`);
  });
  expect(violations, `axe on ${what}`).toEqual([]);
}

/** A screenshot of the page under build/console-screenshots/, then the axe check. */
export async function look(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
  await checkAxe(page, name);
  expect(pageProblems(page), name).toEqual([]);
}
