// Methods the routes do not serve, sent through a real socket (inject() cannot send every method): on a
// known path they are 405 method_not_allowed with Allow, the envelope and x-request-id, whatever the method.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let port: number;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.service.app.server.address() as AddressInfo).port;
});
afterAll(() => h.close());

function send(
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }>((resolve, reject) => {
    const headers = { authorization: `Bearer ${ws.apiKey}`, ...options.headers };
    const request = http.request({ host: '127.0.0.1', port, method, path, headers }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: JSON.parse(text) }),
      );
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

function expectMethodNotAllowed(res: Awaited<ReturnType<typeof send>>, allow: string) {
  expect(res.status).toBe(405);
  expect(res.headers.allow).toBe(allow);
  expect(res.body.error.code).toBe('method_not_allowed');
  expect(res.body.error.docs_url).toBe('http://wos.test/docs/api/errors#method_not_allowed');
  expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
}

describe('methods a known path does not serve', () => {
  it('answers QUERY with 405 and Allow, with or without a body and whatever its media type', async () => {
    expectMethodNotAllowed(await send('QUERY', '/v1/contacts'), 'GET, POST');
    expectMethodNotAllowed(
      await send('QUERY', '/v1/contacts', {
        headers: { 'content-type': 'application/json' },
        body: '{"limit": 5}',
      }),
      'GET, POST',
    );
    expectMethodNotAllowed(
      await send('QUERY', '/v1/contacts?limit=5', {
        headers: { 'content-type': 'text/plain' },
        body: 'select *',
      }),
      'GET, POST',
    );
  });

  it('answers WebDAV and other registered methods, and methods no registry knows, with 405 and Allow', async () => {
    expectMethodNotAllowed(await send('PROPFIND', '/v1/contacts'), 'GET, POST');
    expectMethodNotAllowed(await send('SEARCH', '/v1/tasks/tsk_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'), 'GET, PATCH');
    expectMethodNotAllowed(
      await send('PUT', '/v1/contacts', { headers: { 'content-type': 'text/plain' }, body: 'x' }),
      'GET, POST',
    );
    expectMethodNotAllowed(await send('TRACE', '/admin/v1/workspaces'), 'GET, POST');
    // Node's parser knows no method FOO: the request is still answered as one no route serves.
    expectMethodNotAllowed(await send('FOO', '/v1/contacts?limit=1'), 'GET, POST');
    const unknownPath = await send('FOO', '/v1/nothing-here');
    expect(unknownPath.status).toBe(404);
    expect(unknownPath.body.error.code).toBe('route_not_found');
  });

  it('keeps 404 route_not_found for an unknown path, whatever the method', async () => {
    for (const method of ['GET', 'QUERY', 'PROPFIND']) {
      const res = await send(method, '/v1/nothing-here');
      expect(res.status, method).toBe(404);
      expect(res.body.error.code).toBe('route_not_found');
      expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
    }
  });
});
