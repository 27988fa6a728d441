// Errors raised by the HTTP layer itself (Node's parser, timeouts, routing) carry the service's envelope and
// x-request-id; on /mcp they are JSON-RPC errors with the envelope in data. Some need a real socket.
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let port: number;

beforeAll(async () => {
  // A short request timeout, so that a body shorter than its Content-Length is answered within the test.
  h = await Harness.start({ env: { WOS_REQUEST_TIMEOUT_MS: '1500' } });
  ws = await h.workspace();
  await h.service.app.listen({ port: 0, host: '127.0.0.1' });
  port = (h.service.app.server.address() as AddressInfo).port;
});
afterAll(() => h.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** The first complete response in `bytes`, if it arrived whole. */
function parseResponse(bytes: Buffer): RawResponse | undefined {
  const text = bytes.toString('utf8');
  const split = text.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, split).split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  const body = Buffer.from(text.slice(split + 4));
  const length = Number(headers['content-length']);
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine!.split(' ')[1]),
    headers,
    body: JSON.parse(body.subarray(0, length).toString('utf8')),
  };
}

/** Writes raw bytes to the server and reads the first response; `end` half-closes after writing. */
function raw(request: string, options: { end?: boolean } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const settle = (final: boolean) => {
      const response = parseResponse(Buffer.concat(chunks));
      if (response || final) socket.destroy();
      if (response) resolve(response);
      else if (final)
        reject(new Error(`no complete response: ${JSON.stringify(Buffer.concat(chunks).toString())}`));
    };
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      settle(false);
    });
    socket.on('end', () => settle(true));
    socket.on('error', () => settle(true));
    socket.write(request, () => {
      if (options.end) socket.end();
    });
  });
}

const head = (method: string, path: string, headers: Record<string, string | number> = {}) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${ws.apiKey}\r\n` +
  Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('') +
  '\r\n';

function expectEnvelope(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(res.body.error.docs_url).toBe(`http://wos.test/docs/api/errors#${code}`);
  expect(res.body.error.request_id).toMatch(/^req_/);
  expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
}

function expectRpcError(
  res: RawResponse | { status: number; headers: Record<string, any>; body: any },
  status: number,
  code: string,
) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({
    jsonrpc: '2.0',
    id: null,
    error: { code: expect.any(Number), message: expect.any(String) },
  });
  expect(res.body.error.data.error.code).toBe(code);
  expect(res.headers['x-request-id']).toBe(res.body.error.data.error.request_id);
}

describe('errors of the HTTP layer on REST', () => {
  it('answers a query string over the head limit with 431 and the envelope', async () => {
    const res = await raw(head('GET', `/v1/contacts?query=${'a'.repeat(20_000)}`));
    expectEnvelope(res, 431, 'request_header_fields_too_large');
  });

  it('answers a body longer than its Content-Length with 400 and the envelope', async () => {
    const body = '{"name":"Ada Lovelace"}';
    const res = await raw(
      head('POST', '/v1/contacts', { 'content-type': 'application/json', 'content-length': 5 }) + body,
    );
    expectEnvelope(res, 400, 'validation_failed');
  });

  it('answers a body shorter than its Content-Length with 400 when the client stops sending', async () => {
    const body = '{"name":"Ada"}';
    const res = await raw(
      head('POST', '/v1/contacts', { 'content-type': 'application/json', 'content-length': 100 }) + body,
      {
        end: true,
      },
    );
    expectEnvelope(res, 400, 'validation_failed');
  });

  it('answers a body shorter than its Content-Length with 408 once the request timeout passes', async () => {
    const body = '{"name":"Ada"}';
    const res = await raw(
      head('POST', '/v1/contacts', { 'content-type': 'application/json', 'content-length': 100 }) + body,
    );
    expectEnvelope(res, 408, 'request_timeout');
  });

  it('answers a transfer coding other than chunked with 400 and the envelope', async () => {
    const gzip = await raw(
      `${head('POST', '/v1/contacts', { 'content-type': 'application/json', 'transfer-encoding': 'gzip' })}x`,
    );
    expectEnvelope(gzip, 400, 'validation_failed');
    const chunk = '{"name":"Ada"}';
    const layered = await raw(
      head('POST', '/v1/contacts', {
        'content-type': 'application/json',
        'transfer-encoding': 'gzip, chunked',
      }) + `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expectEnvelope(layered, 400, 'validation_failed');
    expect(layered.body.error.field_errors[0].field).toBe('(request)');
    // Plain chunked bodies still work.
    const chunked = await raw(
      head('POST', '/v1/contacts', {
        'content-type': 'application/json',
        'transfer-encoding': 'chunked',
        connection: 'close',
      }) + `${chunk.length.toString(16)}\r\n${chunk}\r\n0\r\n\r\n`,
    );
    expect(chunked.status).toBe(201);
  });

  it('answers a malformed percent-encoding in the path with 400 and the envelope', async () => {
    const res = await h.request('GET', '/v1/contacts/%E0%A4%A', { token: ws.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.headers['x-request-id']).toBe(res.body.error.request_id);
    const overSocket = await raw(head('GET', '/v1/contacts/%zz'));
    expectEnvelope(overSocket, 400, 'validation_failed');
  });

  it('looks up path IDs of up to 255 characters, and answers longer ones with the envelope', async () => {
    const id = `con_${'x'.repeat(251)}`;
    expect(id).toHaveLength(255);
    const res = await h.request('GET', `/v1/contacts/${id}`, { token: ws.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('resource_not_found');
    const patch = await h.request('PATCH', `/v1/tasks/tsk_${'y'.repeat(251)}`, {
      token: ws.apiKey,
      body: { status: 'completed' },
    });
    expect(patch.body.error.code).toBe('resource_not_found');
    const longer = await h.request('GET', `/v1/contacts/${id}x`, { token: ws.apiKey });
    expect(longer.status).toBe(404);
    expect(longer.body.error.code).toBe('resource_not_found');
    expect(longer.headers['x-request-id']).toBe(longer.body.error.request_id);
  });
});

describe('errors of the HTTP layer on /mcp', () => {
  const mcpHead = (headers: Record<string, string | number>, path = '/mcp') =>
    head('POST', path, { ...headers }).replace(ws.apiKey, ws.mcpToken);

  it('answers 415, 413 and 405 with JSON-RPC error objects carrying the envelope', async () => {
    const text = await h.request('POST', '/mcp', {
      token: ws.mcpToken,
      rawBody: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      headers: { 'content-type': 'text/plain' },
    });
    expectRpcError(text, 415, 'unsupported_media_type');
    const big = await h.mcp(ws.mcpToken, {
      jsonrpc: '2.0',
      id: 1,
      method: 'ping',
      params: { pad: 'x'.repeat(1024 * 1024) },
    });
    expectRpcError(big, 413, 'payload_too_large');
    const get = await h.request('GET', '/mcp', { token: ws.mcpToken });
    expectRpcError(get, 405, 'method_not_allowed');
    expect(get.headers.allow).toBe('POST');
    const put = await h.request('PUT', '/mcp/', { token: ws.mcpToken, body: {} });
    expectRpcError(put, 405, 'method_not_allowed');
  });

  it('answers socket-level errors on /mcp as JSON-RPC too: 431, Content-Length mismatches, transfer codings, timeouts', async () => {
    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    expectRpcError(
      await raw(mcpHead({}, `/mcp?modules=${'a'.repeat(20_000)}`)),
      431,
      'request_header_fields_too_large',
    );
    expectRpcError(
      await raw(mcpHead({ 'content-type': 'application/json', 'content-length': 5 }) + ping),
      400,
      'validation_failed',
    );
    expectRpcError(
      await raw(mcpHead({ 'content-type': 'application/json', 'content-length': 100 }) + ping, { end: true }),
      400,
      'validation_failed',
    );
    expectRpcError(
      await raw(mcpHead({ 'content-type': 'application/json', 'content-length': 100 }) + ping),
      408,
      'request_timeout',
    );
    expectRpcError(
      await raw(`${mcpHead({ 'content-type': 'application/json', 'transfer-encoding': 'gzip' })}x`),
      400,
      'validation_failed',
    );
  });
});
