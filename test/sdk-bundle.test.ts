// The browser SDK as the service serves it: both builds small (under 5 KB gzipped), the IIFE defining the
// global `wos`, and the two routes with their type, caching headers and ETag revalidation.
import vm from 'node:vm';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSdk } from '../src/surfaces/sdk/sdk-routes.ts';
import { Harness } from './helpers/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

describe('browser SDK build', () => {
  it('is under 5 KB gzipped in both formats', async () => {
    const { iife, esm } = await buildSdk();
    for (const code of [iife.code, esm.code]) {
      expect(code.length).toBeGreaterThan(1000);
      expect(gzipSync(code).length).toBeLessThan(5120);
    }
  });

  it('defines the global wos with its five functions, and exports them from the ESM build', async () => {
    const { iife, esm } = await buildSdk();
    const page = vm.createContext({});
    vm.runInContext(iife.code, page);
    const wos = vm.runInContext('wos', page);
    expect(Object.keys(wos).sort()).toEqual(['flush', 'identify', 'init', 'page', 'track']);
    for (const name of ['init', 'track', 'identify', 'flush']) expect(typeof wos[name]).toBe('function');
    expect(esm.code).toMatch(/export\{[^}]*\bas flush\b[^}]*\bas track\b/);
    // Browser code only: nothing of Node's leaks in.
    expect(iife.code).not.toMatch(/require\(|process\.|node:/);
  });
});

describe('SDK routes', () => {
  it('serve the IIFE and the ESM build as JavaScript, cacheable, revalidated by ETag', async () => {
    const { iife, esm } = await buildSdk();
    for (const [url, code] of [
      ['/sdk/wos-analytics.js', iife.code],
      ['/sdk/wos-analytics.mjs', esm.code],
    ] as const) {
      const served = await h.request('GET', url);
      expect(served.status, url).toBe(200);
      expect(served.headers['content-type']).toBe('application/javascript; charset=utf-8');
      expect(served.headers['cache-control']).toBe('public, max-age=300');
      expect(served.headers['access-control-allow-origin']).toBe('*');
      expect(served.text).toBe(code);
      const etag = served.headers.etag as string;
      expect(etag).toMatch(/^"[\w-]+"$/);

      const revalidated = await h.request('GET', url, { headers: { 'if-none-match': `W/${etag}` } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.text).toBe('');
      const stale = await h.request('GET', url, { headers: { 'if-none-match': '"something-else"' } });
      expect(stale.status).toBe(200);
    }
    const iifeTag = (await h.request('GET', '/sdk/wos-analytics.js')).headers.etag;
    const esmTag = (await h.request('GET', '/sdk/wos-analytics.mjs')).headers.etag;
    expect(iifeTag).not.toBe(esmTag);
  });

  it('answer only the two files', async () => {
    expect((await h.request('GET', '/sdk/other.js')).status).toBe(404);
    expect((await h.request('POST', '/sdk/wos-analytics.js')).status).toBe(405);
  });
});
