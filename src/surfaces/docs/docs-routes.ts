import { createRequire } from 'node:module';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { errorCatalogue } from '../../core/errors.ts';

const require = createRequire(import.meta.url);
// swagger-ui-dist ships the reference UI's assets; they are served from here, never from a CDN.
const swaggerUiDir: string = require('swagger-ui-dist').getAbsoluteFSPath();

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * A Swagger UI page over one OpenAPI document: the workspace API (/docs) or the operator API (/docs/admin).
 * Tags start collapsed with a filter box, and deep links name the open operation: all operations expanded
 * made one page tens of thousands of pixels long.
 */
function referencePage(title: string, specUrl: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8"><title>${title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
<p style="font-family:sans-serif;margin:1em">Error codes: <a href="/docs/api/errors">/docs/api/errors</a> &middot; Workspace API: <a href="/docs">/docs</a> (<a href="/openapi.json">/openapi.json</a>) &middot; Operator API: <a href="/docs/admin">/docs/admin</a> (<a href="/admin/openapi.json">/admin/openapi.json</a>) &middot; MCP endpoint: <code>/mcp</code></p>
<div id="reference"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '${specUrl}', dom_id: '#reference', deepLinking: true, filter: true, docExpansion: 'none' });</script>
</body>
</html>`;
}

function errorsPage(): string {
  const rows = Object.entries(errorCatalogue)
    .map(
      ([code, entry]) => `<section id="${code}">
<h2><a href="#${code}">${code}</a></h2>
<p><strong>HTTP ${entry.status}</strong> &middot; ${entry.retryable ? 'retryable with backoff' : 'not retryable: fix the cause first'}</p>
<p>${escapeHtml(entry.message)}</p>
<p>${escapeHtml(entry.description)}</p>
</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>wos error codes</title>
<style>body{font-family:sans-serif;max-width:48em;margin:2em auto;line-height:1.5}section{border-top:1px solid #ddd}</style>
</head><body>
<h1>Error codes</h1>
<p>Every error of the REST API and of MCP tool calls has this shape:
<code>{"error": {"code", "message", "request_id", "docs_url", ...}}</code>, with <code>field_errors</code>,
<code>required_scope</code>, <code>retry_after_seconds</code> or <code>idempotency_key</code> where they apply.
Quote the request_id when you ask for help.</p>
${rows}
</body></html>`;
}

export async function registerDocsRoutes(app: FastifyInstance): Promise<void> {
  await app.register(fastifyStatic, {
    root: swaggerUiDir,
    prefix: '/docs/assets/',
    decorateReply: false,
    index: false,
  });
  const reference = referencePage('wos API reference', '/openapi.json');
  const adminReference = referencePage('wos operator API reference', '/admin/openapi.json');
  const errors = errorsPage();
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(reference));
  app.get('/docs/admin', async (_request, reply) =>
    reply.type('text/html; charset=utf-8').send(adminReference),
  );
  app.get('/docs/api/errors', async (_request, reply) => reply.type('text/html; charset=utf-8').send(errors));
}
