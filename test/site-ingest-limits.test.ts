// A site key is public (copied from any web page): its traffic is bounded by the site's own limits, counts
// every request (duplicates and refused events included), and can never lock the workspace's API keys out,
// neither through the workspace rate limit nor through its billing credit or monthly cap.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness } from './helpers/harness.ts';

let h: Harness;
const ORIGIN = 'https://shop.example.com';
const URL = '/v1/insights/app-events';

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

const event = (n: number, extra: Record<string, unknown> = {}) => ({
  app: 'shop',
  event_name: 'page.viewed',
  object_type: 'page',
  object_id: `/p/${n}`,
  ...extra,
});

async function siteIn(apiKey: string, limits: Record<string, number> = {}) {
  const created = await h.request('POST', '/v1/insights/sites', {
    token: apiKey,
    body: { name: 'Shop', allowed_origins: [ORIGIN], ...limits },
  });
  expect(created.status, created.text).toBe(201);
  const siteKey = created.body.analytics_site.site_key as string;
  return (body: unknown) =>
    h.request('POST', `${URL}?site_key=${siteKey}`, { body, headers: { origin: ORIGIN } });
}

const creditOf = async (workspaceId: string) =>
  (await h.admin('GET', `/workspaces/${workspaceId}`)).body.workspace.billing.credit_units;

describe('site-key ingest and the workspace', () => {
  it("floods a site key until the site answers 429: the workspace's API key still answers 2xx", async () => {
    const ws = await h.workspace('Flooded');
    // The workspace's API limit is lower than the site's: before, the site's traffic used it up.
    await h.admin('PATCH', `/workspaces/${ws.id}`, { rate_limit_per_minute: 10 });
    const send = await siteIn(ws.apiKey, { events_per_minute: 30 });
    const statuses: number[] = [];
    for (let n = 0; n < 40; n++) statuses.push((await send(event(n))).status);
    expect(statuses.slice(0, 30).every((s) => s === 202)).toBe(true);
    const refused = await send(event(99));
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/site's per-minute limit/);
    expect(refused.headers.ratelimit).toBeUndefined();

    const api = await h.request('GET', '/v1/insights/sites', { token: ws.apiKey });
    expect(api.status, api.text).toBe(200);
    const ingest = await h.request('POST', URL, { token: ws.apiKey, body: event(1000) });
    expect(ingest.status, ingest.text).toBe(202);
    // The API keys have their whole budget: ten calls in the minute (creating the site and two above).
    for (let n = 0; n < 7; n++)
      expect((await h.request('GET', '/v1/insights/sites', { token: ws.apiKey })).status).toBe(200);
    expect((await h.request('GET', '/v1/insights/sites', { token: ws.apiKey })).status).toBe(429);
  });

  it("counts duplicates and refused events toward the site's limits", async () => {
    const ws = await h.workspace('Duplicates');
    const send = await siteIn(ws.apiKey, { events_per_minute: 5, daily_quota: 1000 });
    const same = event(1, { event_id: 'evt-same' });
    const first = await send(same);
    expect(first.body).toMatchObject({ accepted: 1, duplicates: 0 });
    for (let n = 0; n < 3; n++) expect((await send(same)).body).toMatchObject({ accepted: 0, duplicates: 1 });
    // An event nothing can store (no app) still counts: four sent plus this one make the minute's five.
    const invalid = await send({ event_name: 'page.viewed', object_type: 'page', object_id: '/x' });
    expect(invalid.status).toBe(400);
    const over = await send(same);
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    h.clock.advance(60_000);
    expect((await send(same)).status).toBe(202);
  });

  it('meters site events without charging credit, and refuses them (429) while billing is paused', async () => {
    const ws = await h.workspace('Low credit');
    const send = await siteIn(ws.apiKey);
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: 2 } });
    const sent = [];
    for (let n = 0; n < 5; n++) sent.push(await send(event(n)));
    expect(sent.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);
    expect(await creditOf(ws.id)).toBe(2);
    const api = await h.request('GET', '/v1/insights/sites', { token: ws.apiKey });
    expect(api.status, api.text).toBe(200);

    // Metered: each site call's call event carries its units, billed to no credit.
    await h.flushUsage();
    const metered = await h.db
      .selectFrom('call_events')
      .select(['units', 'billed_units', 'credential_path'])
      .where('request_id', '=', sent[0]!.body.request_id)
      .executeTakeFirstOrThrow();
    expect(metered).toMatchObject({ credential_path: 'rest/site_key' });
    expect(Number(metered.units)).toBe(1);
    expect(Number(metered.billed_units)).toBe(0);

    // The API keys spend the credit; then the workspace is paused, and its site with it.
    expect((await h.request('GET', '/v1/insights/sites', { token: ws.apiKey })).status).toBe(200);
    expect(await creditOf(ws.id)).toBe(0);
    const paused = await h.request('GET', '/v1/insights/sites', { token: ws.apiKey });
    expect(paused.body.error.code).toBe('billing_paused');
    const site = await send(event(100));
    expect(site.status).toBe(429);
    expect(site.body.error.code).toBe('rate_limited');
    expect(site.body.error.message).toMatch(/billing/);
    expect(Number(site.headers['retry-after'])).toBeGreaterThan(0);
    expect(await creditOf(ws.id)).toBe(0);
  });

  it("never counts site events toward the workspace's monthly cap", async () => {
    const ws = await h.workspace('Capped');
    const send = await siteIn(ws.apiKey);
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { monthly_cap_units: 3 } });
    for (let n = 0; n < 6; n++) expect((await send(event(n))).status).toBe(202);
    // The cap started from the month's billed units (creating the site: 1), never the site's events.
    for (let n = 0; n < 2; n++)
      expect((await h.request('GET', '/v1/insights/sites', { token: ws.apiKey })).status).toBe(200);
    expect((await h.request('GET', '/v1/insights/sites', { token: ws.apiKey })).status).toBe(402);
    expect((await send(event(7))).status).toBe(429);
    // A cap set again is seeded from the month's billed units: the site's calls are not among them.
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { monthly_cap_units: 4 } });
    expect((await h.request('GET', '/v1/insights/sites', { token: ws.apiKey })).status).toBe(200);
  });
});
