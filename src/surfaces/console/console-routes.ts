// The console at /console (one page; its routes are the browser's) and its assets at /console/assets/, and
// the landing page at /. Pages allow only this origin (Content-Security-Policy: no inline script, no other
// host), so the console works offline and an injected script cannot run.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail } from '../../core/errors.ts';
import { buildConsole } from './console-build.ts';

export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const LANDING_STYLE =
  'body{font-family:system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em;line-height:1.6}' +
  '@media (prefers-color-scheme: dark){body{background:#15171c;color:#e6e8ee}a{color:#8ab4ff}}';
const LANDING_CSP = CONSOLE_CSP.replace(
  "style-src 'self'",
  `style-src 'sha256-${createHash('sha256').update(LANDING_STYLE).digest('base64')}'`,
);

const landing = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>wos</title><style>${LANDING_STYLE}</style></head>
<body>
<h1>Workspace Operations Service</h1>
<ul>
<li><a href="/console">Console</a>: Data &amp; Insights for people, signed in with a workspace API key</li>
<li><a href="/docs">API reference</a> (<a href="/openapi.json">/openapi.json</a>)</li>
<li>MCP endpoint: <code>/mcp</code> (JSON-RPC 2.0 over HTTP POST, with a workspace MCP token)</li>
</ul>
</body>
</html>`;

function securityHeaders(reply: FastifyReply, csp: string) {
  reply
    .header('content-security-policy', csp)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY');
}

const gzipped = new WeakMap<Uint8Array, Buffer>();
const acceptsGzip = (request: FastifyRequest) => /\bgzip\b/.test(request.headers['accept-encoding'] ?? '');

export function registerConsoleRoutes(app: FastifyInstance): void {
  app.get('/', async (_request, reply) => {
    securityHeaders(reply, LANDING_CSP);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(landing);
  });

  const shell = async (_request: FastifyRequest, reply: FastifyReply) => {
    const { html } = await buildConsole();
    securityHeaders(reply, CONSOLE_CSP);
    // The page names the current hashed assets: revalidate it every time, cache the assets forever.
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(html);
  };
  app.get('/console', shell);
  app.get('/console/*', shell);

  app.get<{ Params: { file: string } }>('/console/assets/:file', async (request, reply) => {
    const asset = (await buildConsole()).assets.get(request.params.file);
    if (!asset) throw fail('route_not_found');
    reply
      .type(asset.contentType)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('etag', asset.etag)
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding');
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    if (!acceptsGzip(request)) return reply.send(Buffer.from(asset.contents));
    let body = gzipped.get(asset.contents);
    if (!body) {
      body = gzipSync(asset.contents, { level: 9 });
      gzipped.set(asset.contents, body);
    }
    return reply.header('content-encoding', 'gzip').send(body);
  });
}
