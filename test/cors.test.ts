// CORS: only the ingest route grants browsers by default; WOS_CORS_ORIGINS opens /v1 to listed origins.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
