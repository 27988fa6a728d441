// With WOS_WEBHOOK_ALLOW_PRIVATE off (the default), every non-public address form is refused at creation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const create = (url: string) =>
  h.request('POST', '/v1/webhooks', { token: ws.apiKey, body: { url, event_types: ['*'] } });

describe('outbound address checks', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://localhost:8080/hook', 'loopback name'],
    ['http://10.0.0.8/hook', 'private 10/8'],
    ['http://172.16.5.4/hook', 'private 172.16/12'],
    ['http://192.168.1.10/hook', 'private 192.168/16'],
    ['http://169.254.169.254/latest/meta-data/', 'cloud metadata'],
    ['http://169.254.10.1/hook', 'link-local'],
    ['http://100.64.0.1/hook', 'carrier-grade NAT'],
    ['http://0.0.0.0/hook', 'unspecified'],
    ['http://[::1]/hook', 'IPv6 loopback'],
    ['http://[fd12:3456::1]/hook', 'IPv6 unique local'],
    ['http://[fe80::1]/hook', 'IPv6 link-local'],
    ['http://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback'],
    ['http://[::ffff:169.254.169.254]/hook', 'IPv4-mapped metadata'],
    ['http://2130706433/hook', 'decimal IPv4'],
    ['http://0177.0.0.1/hook', 'octal IPv4'],
    ['http://0x7f000001/hook', 'hex IPv4'],
    ['http://0x7f.0.0.1/hook', 'mixed hex IPv4'],
    ['http://127.1/hook', 'short IPv4'],
    ['http://0xa9fea9fe/hook', 'hex metadata'],
    ['http://[64:ff9b:1::a9fe:a9fe]/hook', 'local-use NAT64 prefix'],
    ['http://[64:ff9b:1:ffff::1]/hook', 'local-use NAT64 prefix, any suffix'],
  ])('refuses %s (%s)', async (url) => {
    const res = await create(url);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.field_errors).toEqual([
      { field: 'url', message: expect.stringMatching(/^is refused: /) },
    ]);
  });

  it.each([
    ['ftp://example.com/hook', 'must use http or https'],
    ['file:///etc/passwd', 'must use http or https'],
    ['gopher://example.com/', 'must use http or https'],
    ['https://user:secret@example.com/hook', 'must not contain credentials'],
    ['not a url', 'must be a valid uri'],
  ])('refuses %s', async (url, message) => {
    const res = await create(url);
    expect(res.body.error.field_errors).toEqual([{ field: 'url', message }]);
  });

  it('stores nothing for a refused URL, on either surface', async () => {
    const mcp = await h.callTool(ws.mcpToken, 'create_webhook_endpoint', {
      url: 'http://[::1]:9/x',
      event_types: ['*'],
    });
    expect(mcp.result.isError).toBe(true);
    expect(mcp.body.error.code).toBe('validation_failed');
    expect(
      await h.db.selectFrom('webhook_endpoints').selectAll().where('workspace_id', '=', ws.id).execute(),
    ).toEqual([]);
  });

  it('guards notification subscription endpoints the same way', async () => {
    for (const channel of ['webhook', 'web_push'] as const) {
      const keys =
        channel === 'web_push'
          ? {
              p256dh: Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 1)]).toString('base64url'),
              auth: Buffer.alloc(16, 2).toString('base64url'),
            }
          : undefined;
      const res = await h.request('POST', '/v1/notifications/subscriptions', {
        token: ws.apiKey,
        body: {
          recipient_id: 'u-1',
          channel,
          endpoint: 'http://169.254.169.254/latest',
          ...(keys ? { keys } : {}),
        },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.field_errors).toEqual([
        { field: 'endpoint', message: expect.stringMatching(/^is refused: 169\.254\.169\.254/) },
      ]);
    }
  });

  it('refuses ports other than 80 and 443 unless the operator allows them', async () => {
    const portError = (port: number) => [
      {
        field: 'url',
        message: `is refused: port ${port} is not allowed (80 and 443 are, and ports the operator allows)`,
      },
    ];
    for (const port of [8443, 22, 6379, 1]) {
      const res = await create(`https://93.184.216.34:${port}/hook`);
      expect(res.status).toBe(400);
      expect(res.body.error.field_errors).toEqual(portError(port));
    }
    // The port is judged first: a private address on another port is refused for its port.
    expect((await create('http://127.0.0.1:8080/hook')).body.error.field_errors).toEqual(portError(8080));
    for (const url of [
      'https://93.184.216.34/hook',
      'https://93.184.216.34:443/hook',
      'http://93.184.216.34:80/hook',
      'http://93.184.216.34:443/hook',
    ]) {
      expect((await create(url)).status).toBe(201);
    }
    const subscription = await h.request('POST', '/v1/notifications/subscriptions', {
      token: ws.apiKey,
      body: { recipient_id: 'u-port', channel: 'webhook', endpoint: 'https://93.184.216.34:8443/n' },
    });
    expect(subscription.body.error.field_errors).toEqual([
      { field: 'endpoint', message: expect.stringMatching(/^is refused: port 8443/) },
    ]);

    h = await h.restart({ outboundAllowedPorts: [8443] });
    expect((await create('https://93.184.216.34:8443/hook')).status).toBe(201);
    expect((await create('https://93.184.216.34:8444/hook')).body.error.field_errors).toEqual(
      portError(8444),
    );
  });

  it('reads the allowed ports from WOS_OUTBOUND_ALLOWED_PORTS', () => {
    expect(loadConfig({}).outboundAllowedPorts).toEqual([]);
    expect(loadConfig({ WOS_OUTBOUND_ALLOWED_PORTS: '8443, 9000' }).outboundAllowedPorts).toEqual([
      8443, 9000,
    ]);
    for (const bad of ['http', '0', '70000', '80,', '8443;9000']) {
      expect(() => loadConfig({ WOS_OUTBOUND_ALLOWED_PORTS: bad })).toThrow(
        /WOS_OUTBOUND_ALLOWED_PORTS must be comma-separated port numbers/,
      );
    }
  });
});
