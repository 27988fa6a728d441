// The browser SDK (src/sdk/wos-analytics.ts), bundled in memory by esbuild on its first request and cached
// for the life of the process: `npm start` serves it with no build step, and services that never serve it
// (most test apps) never start esbuild.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { FastifyInstance } from 'fastify';

export interface SdkBundle {
  code: string;
  etag: string;
}

const SOURCE = fileURLToPath(new URL('../../sdk/wos-analytics.ts', import.meta.url));

async function bundle(format: 'iife' | 'esm'): Promise<SdkBundle> {
  const result = await build({
    entryPoints: [SOURCE],
    bundle: true,
    write: false,
    minify: true,
    format,
    // The IIFE's exports become the page's global `wos`.
    globalName: format === 'iife' ? 'wos' : undefined,
    platform: 'browser',
    target: 'es2018',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  return { code, etag: `"${createHash('sha256').update(code).digest('base64url').slice(0, 22)}"` };
}

let built: Promise<{ iife: SdkBundle; esm: SdkBundle }> | undefined;

/** Both builds of the SDK, made once per process (a failed build is retried by the next call). */
export function buildSdk(): Promise<{ iife: SdkBundle; esm: SdkBundle }> {
  built ??= Promise.all([bundle('iife'), bundle('esm')]).then(
    ([iife, esm]) => ({ iife, esm }),
    (error) => {
      built = undefined;
      throw error;
    },
  );
  return built;
}

const matches = (header: string | undefined, etag: string) =>
  header?.split(',').some((tag) => {
    const value = tag.trim();
    return value === '*' || value.replace(/^W\//, '') === etag;
  });

export function registerSdkRoutes(app: FastifyInstance): void {
  for (const [file, format] of [
    ['wos-analytics.js', 'iife'],
    ['wos-analytics.mjs', 'esm'],
  ] as const) {
    app.get(`/sdk/${file}`, async (request, reply) => {
      const sdk = (await buildSdk())[format];
      reply
        .header('content-type', 'application/javascript; charset=utf-8')
        // The URL carries no version: a short freshness, then a cheap revalidation by ETag, so a new
        // release reaches pages within minutes.
        .header('cache-control', 'public, max-age=300')
        .header('etag', sdk.etag)
        // A public, credential-free script: pages on any origin load it, and module scripts (the .mjs)
        // are fetched with CORS. This is not the API's CORS, which only the ingest endpoint answers.
        .header('access-control-allow-origin', '*')
        .header('cross-origin-resource-policy', 'cross-origin');
      if (matches(request.headers['if-none-match'], sdk.etag)) return reply.code(304).send();
      return reply.send(sdk.code);
    });
  }
}
