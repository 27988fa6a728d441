// Console stories of Custom BI (SQLite; console-smoke.test.ts covers PostgreSQL): the query builder previews
// through run_bi_query and saves a report; the report goes on a new dashboard whose tile draws its chart and
// lists the API's numbers; a draft metric is approved; an export is created, watched and downloaded, its
// rows those of the query; a report is scheduled for the last day of the month; runs are filtered.
import fs from 'node:fs';
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
const QUERY = {
  dataset_key: 'crm_pipeline',
  dimensions: ['currency'],
  measures: [{ aggregate: 'count' }, { aggregate: 'sum', column: 'amount_cents' }],
};

/** A cell as the console shows it in en-GB: money in units, numbers grouped. */
const shown = (value: unknown, type: string) =>
  typeof value === 'number'
    ? (type === 'money' ? value / 100 : value).toLocaleString('en-GB')
    : String(value);

describe.skipIf(usingPostgres)('console: Custom BI stories', () => {
  beforeAll(async () => {
    s = await startConsole({
      clock: new MutableClock(new Date('2026-11-21T12:30:00.000Z')),
      env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' },
    });
    page = s.page;
    ws = await s.h.workspace('BI');
    for (const [name, amount_cents, currency] of [
      ['Alpha', 120_000, 'EUR'],
      ['Beta', 80_000, 'EUR'],
      ['Gamma', 50_000, 'USD'],
    ] as const) {
      const deal = await s.h.request('POST', '/v1/deals', {
        token: ws.apiKey,
        body: { name, amount_cents, currency },
      });
      expect(deal.status, deal.text).toBe(201);
    }
    await signIn(page, s.base, ws.apiKey);
  });
  afterAll(() => s?.close());

  it(
    'previews a query, saves it as a report, and puts the report on a dashboard that draws it',
    async () => {
      await page.getByRole('link', { name: 'Templates' }).click();
      await page.getByRole('heading', { name: /crm_pipeline/ }).waitFor();
      await look(page, 'bi-templates');
      await page
        .getByRole('link', { name: /Query .* in the query builder/ })
        .nth(1)
        .click();
      await page.getByRole('combobox', { name: /^Dataset/ }).selectOption('crm_pipeline');
      await page.getByLabel('currency', { exact: true }).check();
      await page.getByRole('button', { name: 'Add measure' }).click();
      await page.getByRole('combobox', { name: /^Measure 2/ }).selectOption('sum:amount_cents');
      expect(decodeURIComponent(page.url())).toContain('"dimensions":["currency"]');
      await page.getByRole('button', { name: 'Preview' }).click();
      const preview = page.locator('table:has(caption:has-text("Preview")) tbody tr');
      await eventually(() => preview.count()).toBe(2);
      await look(page, 'bi-query-builder');

      await page.getByLabel('Report name').fill('Pipeline by currency');
      await page.getByRole('button', { name: 'Save as report' }).click();
      await page.getByRole('heading', { name: 'Pipeline by currency' }).waitFor();
      await eventually(() =>
        page.locator('table:has(caption:has-text("Pipeline by currency")) tbody tr').count(),
      ).toBe(2);
      await look(page, 'bi-report');

      await page.getByRole('button', { name: 'Add to dashboard' }).click();
      await page.getByLabel('New dashboard name').fill('Sales');
      await page.getByRole('button', { name: 'Add tile' }).click();
      await page.getByRole('heading', { name: 'Sales', level: 1 }).waitFor();
      const tile = page.locator('.tile', { hasText: 'Pipeline by currency' });
      const rows = tile.locator('tbody tr');
      await eventually(() => rows.count()).toBe(2);
      // The chart drew: its canvas has coloured pixels.
      const drawn = await tile
        .locator('canvas')
        .first()
        .evaluate((canvas: HTMLCanvasElement) => {
          const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
          let painted = 0;
          for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
          return painted;
        });
      expect(drawn).toBeGreaterThan(500);
      // Its table shows the numbers the API computes for the same query.
      const api = await s.h.request('POST', '/v1/bi/queries/run', { token: ws.apiKey, body: QUERY });
      const { columns, rows: expected } = api.body.result;
      const texts = await rows.allTextContents();
      for (const row of expected) {
        const line = texts.find((t) => t.startsWith(row.currency))!;
        for (const c of columns) expect(line).toContain(shown(row[c.name], c.type));
      }
      await look(page, 'bi-dashboard');

      // A second tile (an insight view), then reordered from the keyboard: the order is saved.
      const view = await s.h.request('POST', '/v1/insights/views', {
        token: ws.apiKey,
        body: {
          name: 'Deals by stage',
          source: { type: 'bi_template', dataset_key: 'crm_pipeline' },
          dimensions: ['stage_key'],
          measures: [{ aggregate: 'count' }],
        },
      });
      expect(view.status, view.text).toBe(201);
      const viewId = view.body.insight_view.id;
      await s.h.request('POST', `/v1/insights/views/${viewId}/refresh`, { token: ws.apiKey, body: {} });
      const dashboardId = page.url().split('/').pop()!;
      const get = async () =>
        (await s.h.request('GET', `/v1/bi/dashboards/${dashboardId}`, { token: ws.apiKey })).body.dashboard;
      const tiles = [
        ...(await get()).tiles.map(({ title, ref, position }: any) => ({ title, ref, position })),
        {
          title: 'Deals by stage',
          ref: { type: 'insight_view', id: viewId },
          position: { x: 6, y: 0, w: 6, h: 4 },
        },
      ];
      const patched = await s.h.request('PATCH', `/v1/bi/dashboards/${dashboardId}`, {
        token: ws.apiKey,
        body: { tiles },
      });
      expect(patched.status, patched.text).toBe(200);
      await page.reload();
      const titles = () => page.locator('.tile h2').allTextContents();
      await eventually(titles).toEqual(['Pipeline by currency', 'Deals by stage']);
      await page.getByRole('button', { name: 'Move Pipeline by currency later' }).focus();
      await page.keyboard.press('Enter');
      await eventually(titles).toEqual(['Deals by stage', 'Pipeline by currency']);
      await page.getByText('Pipeline by currency moved to position 2.').waitFor();
      const saved = [...(await get()).tiles].sort(
        (a: any, b: any) => a.position.y - b.position.y || a.position.x - b.position.x,
      );
      expect(saved.map((t: any) => t.title)).toEqual(['Deals by stage', 'Pipeline by currency']);
    },
    STORY,
  );

  it(
    'approves a draft metric',
    async () => {
      const draft = await s.h.request('POST', '/v1/bi/metrics', {
        token: ws.apiKey,
        body: {
          key: 'pipeline_total',
          name: 'Pipeline total',
          dataset_key: 'crm_pipeline',
          expression: 'sum(amount_cents)',
        },
      });
      expect(draft.status, draft.text).toBe(201);
      await page.getByRole('link', { name: 'Metrics' }).click();
      await page.getByRole('button', { name: 'Approve Pipeline total' }).waitFor();
      await look(page, 'bi-metrics');
      await page.getByRole('button', { name: 'Approve Pipeline total' }).click();
      await eventually(() => page.locator('tr', { hasText: 'pipeline_total' }).textContent()).toContain(
        'approved',
      );
      const stored = await s.h.request('GET', `/v1/bi/metrics/${draft.body.metric.id}`, { token: ws.apiKey });
      expect(stored.body.metric.status).toBe('approved');
    },
    STORY,
  );

  it(
    'creates an export, watches it finish, and downloads a CSV whose rows are the query rows',
    async () => {
      const run = await s.h.request('POST', '/v1/bi/queries/run', {
        token: ws.apiKey,
        body: { ...QUERY, name: 'By currency' },
      });
      await page.getByRole('link', { name: 'Exports' }).click();
      await page.getByText('No exports yet').waitFor();
      await page.getByLabel('Saved query').selectOption(run.body.query.id);
      await page.getByLabel('Export name').fill('Currency export');
      await page.getByRole('button', { name: 'Create export' }).click();
      const download = page.getByRole('button', { name: 'Download Currency export' });
      await download.waitFor({ timeout: 30_000 });
      await look(page, 'bi-exports');
      const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
      expect(file.suggestedFilename()).toBe('currency-export.csv');
      const lines = fs
        .readFileSync((await file.path())!, 'utf8')
        .trim()
        .split(/\r?\n/);
      const { columns, rows } = run.body.result;
      expect(lines[0]).toBe(columns.map((c: { name: string }) => c.name).join(','));
      expect(lines.slice(1)).toEqual(
        rows.map((r: Record<string, unknown>) => columns.map((c: { name: string }) => r[c.name]).join(',')),
      );
    },
    STORY,
  );

  it(
    'schedules a report for the last day of the month and lists runs by status',
    async () => {
      await page.getByRole('link', { name: 'Reports' }).click();
      await page.getByRole('link', { name: 'Pipeline by currency' }).click();
      await page.getByRole('button', { name: 'Schedule' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByLabel('Cadence').selectOption('monthly');
      await dialog.getByLabel('Day of month').selectOption('last');
      await look(page, 'bi-schedule-dialog');
      await dialog.getByRole('button', { name: 'Save schedule' }).click();
      await page.getByText('Scheduled: next run').waitFor();
      await page.getByRole('link', { name: 'Scheduled artifacts' }).click();
      const row = page.locator('tbody tr', { hasText: 'Pipeline by currency' });
      await eventually(() => row.textContent()).toContain('Monthly on the last day at 06:00');
      expect(await row.textContent()).toContain('Europe/Berlin');
      await look(page, 'bi-schedules');

      await page.getByRole('link', { name: 'Runs' }).click();
      await page.getByLabel('Status').selectOption('completed');
      await eventually(() => page.url()).toContain('status=completed');
      await eventually(() => page.locator('tbody tr').count()).toBeGreaterThan(1);
      expect(await page.locator('tbody tr', { hasText: 'failed' }).count()).toBe(0);
      await look(page, 'bi-runs');
      await page.reload();
      expect(await page.getByLabel('Status').inputValue()).toBe('completed');
    },
    STORY,
  );
});
