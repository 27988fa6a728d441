// `wos serve` as a user runs it: first-start bootstrap, a real port, and a graceful stop on SIGTERM.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedDatabase } from './helpers/harness.ts';
import { startNode } from './helpers/node-process.ts';

let database: Awaited<ReturnType<typeof isolatedDatabase>>;

beforeAll(async () => {
  database = await isolatedDatabase();
});
afterAll(() => database.drop());

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const start = (port: number) =>
  startNode({ ...database.env, PORT: String(port), WOS_LOG_LEVEL: 'info', WOS_ADMIN_TOKEN: '' });

describe('wos serve', () => {
  it('bootstraps once, serves REST and MCP with the printed tokens, and stops gracefully', async () => {
    const port = await freePort();
    const first = start(port);
    await first.waitFor('wos listening');
    const out = first.output();
    const apiKey = /API key:\s+(wos_sk_\S+)/.exec(out)?.[1];
    const mcpToken = /MCP token:\s+(wos_mcp_\S+)/.exec(out)?.[1];
    const operatorToken = /^\s+(wos_op_\S+)$/m.exec(out)?.[1];
    expect(apiKey && mcpToken && operatorToken).toBeTruthy();
    expect(out).toContain(`curl -s http://127.0.0.1:${port}/v1/contacts`);
    expect(out).toContain('"mcpServers"');

    const base = `http://127.0.0.1:${port}`;
    const created = await fetch(`${base}/v1/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Served' }),
    });
    expect(created.status).toBe(201);
    const tool = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'search_contacts', arguments: {} },
      }),
    });
    const body = await tool.json();
    expect(body.result.structuredContent.contacts[0].name).toBe('Served');
    // The printed MCP configuration connects with a profile: its listing holds that profile's tools.
    const configured = /"url": "([^"]+)"/.exec(out)?.[1];
    expect(configured).toBe(`http://127.0.0.1:${port}/mcp?profile=core,crm`);
    const listed = await fetch(configured!, {
      method: 'POST',
      headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    const names = (await listed.json()).result.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_workspace_summary', 'create_contact', 'find_tools']));
    expect(names).not.toContain('create_invoice');
    expect(out).toContain('Profiles: core, crm, finance');
    const workspaces = await fetch(`${base}/admin/v1/workspaces`, {
      headers: { authorization: `Bearer ${operatorToken}` },
    });
    expect((await workspaces.json()).workspaces.map((w: any) => w.name)).toEqual(['Default']);
    // Tokens never reach the logs.
    expect(first.output().split('wos listening')[1]).not.toContain(apiKey);
    // Each request's log line names its request_id once (a duplicate key is ambiguous to log pipelines).
    const requestLine = first
      .output()
      .split('\n')
      .find((line) => line.includes('"route":"/v1/contacts"'));
    expect(requestLine?.match(/"request_id"/g)).toHaveLength(1);

    const code = first.exited;
    first.child.kill('SIGTERM');
    expect(await code).toBe(0);

    // A second start reuses the database and prints no new tokens.
    const second = start(port);
    await second.waitFor('wos listening');
    expect(second.output()).not.toContain('first start');
    const again = await fetch(`${base}/v1/contacts`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(again.status).toBe(200);
    const secondCode = second.exited;
    second.child.kill('SIGINT');
    expect(await secondCode).toBe(0);
    // Each start loads the sources through tsx: on a busy machine that alone takes many seconds.
  }, 300_000);
});
