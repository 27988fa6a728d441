// Failed authentication is throttled per client address on REST, MCP and the operator API: after 20
// rejected credentials in a minute, further bad credentials from that address answer 429, valid ones work.
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Service } from '../src/app.ts';
import { AUTH_FAILURES_PER_MINUTE } from '../src/core/auth-throttle.ts';
import { Harness, OPERATOR_TOKEN, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

type Surface = 'rest' | 'mcp' | 'admin';
const MCP_CALL = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'search_contacts', arguments: {} },
};

/** One request from a given client address; token undefined sends no Authorization header. */
function send(surface: Surface, address: string, token: string | undefined, service: Service = h.service) {
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (surface === 'mcp') {
    return service.app.inject({
      method: 'POST',
      url: '/mcp',
      remoteAddress: address,
      headers: { ...headers, 'content-type': 'application/json' },
      payload: JSON.stringify(MCP_CALL),
    });
  }
  return service.app.inject({
    method: 'GET',
    url: surface === 'rest' ? '/v1/contacts' : '/admin/v1/workspaces',
    remoteAddress: address,
    headers,
  });
}

const errorOf = (surface: Surface, res: LightMyRequestResponse) => {
  const body = res.json();
  return surface === 'mcp' ? body.error.data.error : body.error;
};

/** The error each surface gives a rejected credential before the throttle engages. */
const REJECTED: Record<Surface, { status: number; code: string }> = {
  rest: { status: 404, code: 'workspace_not_found' },
  mcp: { status: 404, code: 'workspace_not_found' },
  admin: { status: 401, code: 'authentication_required' },
};

async function expectThrottled(surface: Surface, res: LightMyRequestResponse) {
  expect(res.statusCode).toBe(429);
  const error = errorOf(surface, res);
  expect(error).toMatchObject({
    code: 'rate_limited',
    message: expect.stringMatching(/failed authentication attempts from this address/),
  });
  expect(error.retry_after_seconds).toBeGreaterThanOrEqual(1);
  expect(error.retry_after_seconds).toBeLessThanOrEqual(60);
  expect(res.headers['retry-after']).toBe(String(error.retry_after_seconds));
  if (surface === 'mcp') expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: 1, error: { code: -32001 } });
}

describe('failed-authentication throttle', () => {
  it.each([
    ['rest', '203.0.113.1', (): string => ws.apiKey],
    ['mcp', '203.0.113.2', (): string => ws.mcpToken],
    ['admin', '203.0.113.3', (): string => OPERATOR_TOKEN],
  ] as const)(
    '%s: the 21st bad credential from one address is 429; valid ones still work',
    async (surface, address, valid) => {
      const bad = surface === 'admin' ? 'wos_op_not-the-operator-token' : 'wos_sk_doesnotexist';
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
        const res = await send(surface, address, bad);
        expect(res.statusCode).toBe(REJECTED[surface].status);
        expect(errorOf(surface, res).code).toBe(REJECTED[surface].code);
      }
      await expectThrottled(surface, await send(surface, address, bad));
      await expectThrottled(surface, await send(surface, address, `${bad}-other`));
      // The address is not locked out: its valid credential works, and a missing header is still 401.
      expect((await send(surface, address, valid())).statusCode).toBe(200);
      expect((await send(surface, address, undefined)).statusCode).toBe(401);
      await expectThrottled(surface, await send(surface, address, bad));
      // Another address is not affected.
      expect((await send(surface, '198.51.100.9', bad)).statusCode).toBe(REJECTED[surface].status);
    },
  );

  it('counts revoked tokens and deleted workspaces, across surfaces, per address', async () => {
    const address = '203.0.113.4';
    const doomed = await h.workspace('Doomed');
    const revoked = await h.createCredential(ws.id, 'api_key');
    expect((await h.admin('DELETE', `/credentials/${revoked.credential.id}`)).status).toBe(200);
    expect((await h.admin('DELETE', `/workspaces/${doomed.id}`)).status).toBe(200);
    for (let i = 0; i < 7; i++) expect((await send('rest', address, revoked.token)).statusCode).toBe(404);
    for (let i = 0; i < 7; i++) expect((await send('mcp', address, doomed.mcpToken)).statusCode).toBe(404);
    for (let i = 0; i < 6; i++) expect((await send('admin', address, 'wos_op_wrong')).statusCode).toBe(401);
    await expectThrottled('rest', await send('rest', address, doomed.apiKey));
    await expectThrottled('admin', await send('admin', address, 'wos_op_wrong'));
  });

  it('does not count requests without a credential or with a malformed Authorization header', async () => {
    const address = '203.0.113.5';
    for (let i = 0; i < AUTH_FAILURES_PER_MINUTE + 5; i++) {
      expect((await send('rest', address, undefined)).statusCode).toBe(401);
      const basic = await h.service.app.inject({
        method: 'GET',
        url: '/v1/contacts',
        remoteAddress: address,
        headers: { authorization: 'Basic dXNlcjpwdw==' },
      });
      expect(basic.statusCode).toBe(401);
    }
    expect((await send('rest', address, 'wos_sk_doesnotexist')).statusCode).toBe(404);
  });

  // Several nodes over one PostgreSQL database share the count (the rate-limit store).
  it.runIf(usingPostgres)('shares the count between nodes on PostgreSQL', async () => {
    expect(h.config.rateLimitStore).toBe('postgres');
    const sibling = await h.startSibling();
    try {
      const address = '203.0.113.6';
      for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) {
        expect(
          (await send('rest', address, 'wos_sk_doesnotexist', i % 2 ? sibling : h.service)).statusCode,
        ).toBe(404);
      }
      await expectThrottled('rest', await send('rest', address, 'wos_sk_doesnotexist', sibling));
      await expectThrottled('rest', await send('rest', address, 'wos_sk_doesnotexist', h.service));
    } finally {
      await sibling.app.close();
    }
  });
});
