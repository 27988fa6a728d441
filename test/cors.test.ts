// CORS: only the ingest route grants browsers by default; WOS_CORS_ORIGINS opens /v1 to listed origins.
// Every Origin header is read strictly: only an origin exactly as browsers serialize it matches a grant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const APP = 'https://console.example.com';

describe('CORS', () => {
  let plain: Harness;
  let open: Harness;
  let ws: TestWorkspace;

  beforeAll(async () => {
    plain = await Harness.start();
    open = await Harness.start({ env: { WOS_CORS_ORIGINS: `${APP}, https://other.example.com` } });
    ws = await open.workspace();
  });
  afterAll(async () => {
    await plain.close();
    await open.close();
  });

  it('sends no CORS headers by default', async () => {
    const own = await plain.workspace();
    const res = await plain.request('GET', '/v1/contacts', { token: own.apiKey, headers: { origin: APP } });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await plain.request('OPTIONS', '/v1/contacts', { headers: { origin: APP } });
    expect(preflight.status).toBe(405);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('grants the configured origins on /v1, preflight included, and nobody else', async () => {
    const preflight = await open.request('OPTIONS', '/v1/contacts', {
      headers: { origin: APP, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(APP);
    expect(String(preflight.headers['access-control-allow-headers'])).toMatch(/authorization/);
    const res = await open.request('GET', '/v1/contacts', { token: ws.apiKey, headers: { origin: APP } });
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers.vary).toMatch(/Origin/);
    const other = await open.request('GET', '/v1/contacts', {
      token: ws.apiKey,
      headers: { origin: 'https://evil.example.com' },
    });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
    const admin = await open.request('GET', '/admin/v1/workspaces', { headers: { origin: APP } });
    expect(admin.headers['access-control-allow-origin']).toBeUndefined();
  });
});

// Origins browsers never send: each would match a grant if the header were read leniently.
const SHOP = 'https://shop.example.com';
const UNSENT = [
  `${SHOP}/`,
  `${SHOP}/path`,
  'https://sh%6Fp.example.com',
  'https://SHOP.example.com',
  `${SHOP}:443`,
  `${SHOP}:0443`,
  'https://user@shop.example.com',
  `${SHOP}?q=1`,
];

describe('Origin is read strictly', () => {
  let h: Harness;
  let ws: TestWorkspace;
  let siteKey: string;

  beforeAll(async () => {
    h = await Harness.start({ env: { WOS_CORS_ORIGINS: 'https://Console.Example.com:443' } });
    ws = await h.workspace();
    const site = await h.request('POST', '/v1/insights/sites', {
      token: ws.apiKey,
      body: { name: 'Shop', allowed_origins: [SHOP] },
    });
    expect(site.status, site.text).toBe(201);
    siteKey = site.body.analytics_site.site_key;
  });
  afterAll(() => h.close());

  it('site-key ingest and its preflight grant the serialized origin only', async () => {
    const path = `/v1/insights/app-events?site_key=${siteKey}`;
    const event = { app: 'shop', event_name: 'page.viewed', object_type: 'page', object_id: '/' };
    const granted = await h.request('POST', path, { headers: { origin: SHOP }, body: event });
    expect(granted.status, granted.text).toBe(202);
    expect(granted.headers['access-control-allow-origin']).toBe(SHOP);
    for (const origin of UNSENT) {
      const preflight = await h.request('OPTIONS', path, {
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.status, origin).toBe(403);
      expect(preflight.headers['access-control-allow-origin'], origin).toBeUndefined();
      const sent = await h.request('POST', path, { headers: { origin }, body: event });
      expect(sent.status, origin).toBe(403);
      expect(sent.body.error.code).toBe('origin_not_allowed');
      expect(sent.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
    const stored = await h.db
      .selectFrom('app_events')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(stored).toHaveLength(1);
  });

  it('refuses to store an allowed origin that is not one, naming each entry', async () => {
    const bad = [
      `${SHOP}/path`,
      `${SHOP}/`,
      'https://sh%6Fp.example.com',
      `${SHOP}:0443`,
      `${SHOP}:`,
      'http://127.1',
    ];
    const created = await h.request('POST', '/v1/insights/sites', {
      token: ws.apiKey,
      body: { name: 'Bad', allowed_origins: [SHOP, ...bad] },
    });
    expect(created.status).toBe(400);
    expect(created.body.error.field_errors.map((e: { field: string }) => e.field)).toEqual(
      bad.map((_, i) => `allowed_origins[${i + 1}]`),
    );
    const ip = created.body.error.field_errors.at(-1);
    expect(ip.message).toContain('127.0.0.1');
  });

  it('WOS_CORS_ORIGINS: stored as browsers send them, matched exactly; a bad entry stops the start', async () => {
    const consoleOrigin = 'https://console.example.com';
    const ok = await h.request('GET', '/v1/contacts', {
      token: ws.apiKey,
      headers: { origin: consoleOrigin },
    });
    expect(ok.headers['access-control-allow-origin']).toBe(consoleOrigin);
    for (const origin of [
      `${consoleOrigin}/`,
      `${consoleOrigin}/x`,
      'https://CONSOLE.example.com',
      `${consoleOrigin}:443`,
    ]) {
      const res = await h.request('GET', '/v1/contacts', { token: ws.apiKey, headers: { origin } });
      expect(res.headers['access-control-allow-origin'], origin).toBeUndefined();
    }
    expect(h.config.corsOrigins).toEqual([consoleOrigin]);
    for (const name of ['WOS_CORS_ORIGINS', 'WOS_MCP_ALLOWED_ORIGINS']) {
      expect(() => loadConfig({ [name]: `${consoleOrigin}, ${consoleOrigin}/` }), name).toThrow(
        new RegExp(`${name}: "${consoleOrigin}/" must be scheme`),
      );
    }
  });

  it('MCP: a loopback origin counts only as browsers send it', async () => {
    const ping = (origin: string) =>
      h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'ping' }, { headers: { origin } });
    expect((await ping('http://localhost:5173')).status).toBe(200);
    for (const origin of ['http://localhost:5173/', 'http://localhost:05173', 'http://u@localhost:5173']) {
      const res = await ping(origin);
      expect(res.status, origin).toBe(403);
      expect(res.body.error.data.error.code).toBe('origin_not_allowed');
    }
  });
});
