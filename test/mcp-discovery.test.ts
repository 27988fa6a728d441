// Discovery for agents on a narrow listing: find_tools ranks every tool and names its profiles;
// enable_toolset adds a profile to an MCP session's listing and sends notifications/tools/list_changed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let baseUrl: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  baseUrl = await h.service.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => h.close());

const rpc = (method: string, params?: unknown, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

/** initialize over raw JSON-RPC: the session ID the answer carries. */
async function initialize(token: string, query = '') {
  const res = await h.mcp(token, rpc('initialize', { protocolVersion: '2025-06-18' }), { query });
  expect(res.status).toBe(200);
  expect(res.body.result.capabilities.tools.listChanged).toBe(true);
  return String(res.headers['mcp-session-id']);
}

describe('find_tools', () => {
  it('ranks every tool by a question, naming scopes, profiles and whether the caller may call it', async () => {
    const reader = await h.createCredential(ws.id, 'mcp_token', ['support:read']);
    const found = await h.callTool(
      reader.token,
      'find_tools',
      { query: 'create an invoice for a customer', limit: 5 },
      '?profile=support',
    );
    expect(found.result.isError).toBeUndefined();
    const tools = found.body.tools as { name: string; profiles: string[]; callable: boolean }[];
    expect(tools).toHaveLength(5);
    expect(tools[0]).toMatchObject({
      name: 'create_invoice',
      title: 'Create an invoice',
      module: 'crm',
      scopes: ['crm:write'],
      profiles: ['finance'],
      callable: false,
    });
    expect(typeof (tools[0] as { description?: unknown }).description).toBe('string');

    const tickets = await h.callTool(reader.token, 'find_tools', { query: 'list support tickets' });
    const listTickets = (
      tickets.body.tools as { name: string; callable: boolean; profiles: string[] }[]
    ).find((tool) => tool.name === 'list_support_tickets');
    expect(listTickets).toMatchObject({ callable: true, profiles: ['support'] });
    expect(tickets.body.tools.length).toBeLessThanOrEqual(10);
  });

  it('refuses a missing query, a limit out of range and unknown fields', async () => {
    const bad = await h.callTool(ws.mcpToken, 'find_tools', { limit: 0, page: 2 });
    expect(bad.result.isError).toBe(true);
    expect(bad.body.error.code).toBe('validation_failed');
    const fields = bad.body.error.field_errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['limit', 'page', 'query']);
  });
});

describe('enable_toolset', () => {
  it('adds a profile to the session listing and sends tools/list_changed to the SDK client', async () => {
    const changes: Tool[][] = [];
    const client = new Client(
      { name: 'wos-toolset-test', version: '1.0.0' },
      {
        listChanged: {
          tools: { debounceMs: 0, onChanged: (_error, tools) => tools && changes.push(tools) },
        },
      },
    );
    const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp?profile=core`), {
      requestInit: { headers: { Authorization: `Bearer ${ws.mcpToken}` } },
    });
    await client.connect(transport);
    expect(transport.sessionId).toMatch(/^mcps_/);
    const before = (await client.listTools()).tools.map((tool) => tool.name);
    expect(before).toContain('create_task');
    expect(before).not.toContain('create_invoice');
    const outside = await client.callTool({ name: 'create_invoice', arguments: {} });
    expect((outside.structuredContent as { error: { code: string } }).error.code).toBe('tool_not_found');

    const enabled = await client.callTool({ name: 'enable_toolset', arguments: { profile: 'finance' } });
    expect(enabled.isError).toBeFalsy();
    const body = enabled.structuredContent as {
      session: { id: string; profiles: string[] };
      tools: string[];
    };
    expect(body.session).toEqual({ id: transport.sessionId, profiles: ['finance'] });
    expect(body.tools).toContain('create_invoice');

    // The notification came with the answer; the client refetched the listing on its own.
    await expect.poll(() => changes.length).toBe(1);
    const after = changes[0]!.map((tool) => tool.name);
    expect(after).toEqual(expect.arrayContaining([...before, 'create_invoice', 'create_accounting_account']));
    const account = await client.callTool({
      name: 'create_accounting_account',
      arguments: { code: '1000', name: 'Cash', type: 'asset' },
    });
    expect(account.isError, JSON.stringify(account.structuredContent)).toBeFalsy();

    // Enabling it again changes nothing: no second notification.
    await client.callTool({ name: 'enable_toolset', arguments: { profile: 'finance' } });
    await client.listTools();
    expect(changes).toHaveLength(1);

    const audited = await h.db
      .selectFrom('audit_events')
      .select(['target_type', 'target_id'])
      .where('workspace_id', '=', ws.id)
      .where('target_type', '=', 'mcp_session')
      .execute();
    expect(audited).toEqual([
      { target_type: 'mcp_session', target_id: transport.sessionId },
      { target_type: 'mcp_session', target_id: transport.sessionId },
    ]);
    await transport.terminateSession();
    await client.close();
  });

  it('answers a plain JSON result without text/event-stream, and keeps profiles per session', async () => {
    const session = await initialize(ws.mcpToken, '?profile=core');
    const headers = { 'mcp-session-id': session };
    const call = rpc('tools/call', { name: 'enable_toolset', arguments: { profile: 'support' } });
    const res = await h.mcp(ws.mcpToken, call, { query: '?profile=core', headers });
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.result.structuredContent.session.profiles).toEqual(['support']);
    const listed = await h.mcp(ws.mcpToken, rpc('tools/list'), { query: '?profile=core', headers });
    const names = listed.body.result.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain('list_support_tickets');
    // Without the session header the same connection lists the profile alone.
    const plain = await h.mcp(ws.mcpToken, rpc('tools/list'), { query: '?profile=core' });
    expect(plain.body.result.tools.map((tool: { name: string }) => tool.name)).not.toContain(
      'list_support_tickets',
    );
    // An event stream when the client accepts one and the listing changed.
    const streamed = await h.mcp(
      ws.mcpToken,
      rpc('tools/call', { name: 'enable_toolset', arguments: { profile: 'calendar' } }, 9),
      { query: '?profile=core', headers: { ...headers, accept: 'application/json, text/event-stream' } },
    );
    expect(streamed.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = streamed.text
      .split('\n\n')
      .filter(Boolean)
      .map((event) => JSON.parse(event.replace(/^event: message\ndata: /, '')));
    expect(events[0]).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    expect(events[1]).toMatchObject({
      id: 9,
      result: { structuredContent: { session: { profiles: ['support', 'calendar'] } } },
    });
  });

  it('needs a session: a stateless call is told to use ?profile=', async () => {
    const res = await h.callTool(ws.mcpToken, 'enable_toolset', { profile: 'crm' });
    expect(res.result.isError).toBe(true);
    expect(res.body.error.code).toBe('mcp_session_required');
    const unknown = await h.callTool(ws.mcpToken, 'enable_toolset', { profile: 'sales' });
    expect(unknown.body.error.field_errors).toEqual([{ field: 'profile', message: expect.any(String) }]);
  });
});

describe('MCP sessions', () => {
  it('answers an unknown, foreign, ended or idle session ID with 404 mcp_session_not_found', async () => {
    const other = await h.createCredential(ws.id, 'mcp_token');
    const session = await initialize(ws.mcpToken);
    const ping = (token: string, id: string) =>
      h.mcp(token, rpc('ping'), { headers: { 'mcp-session-id': id } });
    expect((await ping(ws.mcpToken, session)).status).toBe(200);

    for (const [token, id] of [
      [ws.mcpToken, 'mcps_unknown'],
      [other.token, session],
    ] as const) {
      const res = await ping(token, id);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({
        code: -32001,
        data: { error: { code: 'mcp_session_not_found' } },
      });
    }

    // Idle for 24 hours: gone.
    const idle = await initialize(ws.mcpToken);
    h.clock.advance(24 * 3_600_000);
    expect((await ping(ws.mcpToken, idle)).status).toBe(404);

    // DELETE ends a session of this credential; another credential cannot end it.
    const live = await initialize(ws.mcpToken);
    const end = (token: string) =>
      h.request('DELETE', '/mcp', { token, headers: { 'mcp-session-id': live } });
    expect((await end(other.token)).status).toBe(404);
    expect((await end(ws.mcpToken)).status).toBe(204);
    expect((await ping(ws.mcpToken, live)).status).toBe(404);
    expect((await end(ws.mcpToken)).status).toBe(404);
  });
});
