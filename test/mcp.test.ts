// The MCP surface (/mcp): JSON-RPC handling, tool listing and calls through the shared pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TOOLS } from '../src/core/tool-profiles.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const rpc = (method: string, params?: unknown, id: string | number = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  ...(params ? { params } : {}),
});

describe('protocol', () => {
  it('initializes, acknowledges notifications with 202 and answers ping', async () => {
    const init = await h.mcp(
      ws.mcpToken,
      rpc('initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    );
    expect(init.status).toBe(200);
    expect(init.body.result).toMatchObject({
      protocolVersion: '2025-06-18',
      capabilities: { tools: {} },
      serverInfo: { name: 'wos' },
    });
    const note = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(note.status).toBe(202);
    expect(note.text).toBe('');
    expect(note.headers['x-request-id']).toBeDefined();
    const ping = await h.mcp(ws.mcpToken, rpc('ping', undefined, 'p'));
    expect(ping.body).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('answers protocol errors with JSON-RPC error objects carrying the envelope', async () => {
    const parse = await h.request('POST', '/mcp', { token: ws.mcpToken, rawBody: '{"jsonrpc":' });
    expect(parse.status).toBe(400);
    expect(parse.body.error.code).toBe(-32700);
    expect(parse.body.error.data.error.code).toBe('validation_failed');
    const invalid = await h.mcp(ws.mcpToken, { id: 1, method: 'ping' });
    expect(invalid.body.error.code).toBe(-32600);
    const unknown = await h.mcp(ws.mcpToken, rpc('resources/list'));
    expect(unknown.body.error.code).toBe(-32601);
    expect(unknown.body.error.data.error.request_id).toBe(unknown.headers['x-request-id']);
  });

  it('refuses GET and DELETE with 405', async () => {
    expect((await h.request('GET', '/mcp', { token: ws.mcpToken })).status).toBe(405);
    expect((await h.request('DELETE', '/mcp', { token: ws.mcpToken })).status).toBe(405);
  });

  it('uses HTTP statuses for authentication failures', async () => {
    const none = await h.mcp(undefined, rpc('tools/list'));
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    expect(none.body).toMatchObject({
      jsonrpc: '2.0',
      id: 1,
      error: { data: { error: { code: 'authentication_required' } } },
    });
    const unknown = await h.mcp('wos_mcp_nope', rpc('tools/list'));
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.data.error.code).toBe('workspace_not_found');
  });

  it('applies the workspace MCP auth method policy', async () => {
    const policy = await h.workspace('MCP policy');
    expect((await h.mcp(policy.apiKey, rpc('ping'))).status).toBe(200);
    await h.admin('PATCH', `/workspaces/${policy.id}`, { mcp_auth_methods: ['mcp_token'] });
    const refused = await h.mcp(policy.apiKey, rpc('ping'));
    expect(refused.status).toBe(403);
    expect(refused.body.error.data.error.code).toBe('mcp_auth_method_not_allowed');
    expect((await h.mcp(policy.mcpToken, rpc('ping'))).status).toBe(200);
    // An API key call records its credential path.
    await h.admin('PATCH', `/workspaces/${policy.id}`, { mcp_auth_methods: ['mcp_token', 'api_key'] });
    const call = await h.callTool(policy.apiKey, 'search_contacts', {});
    await h.flushUsage();
    const events = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', call.body.request_id)
      .execute();
    expect(events[0]).toMatchObject({
      kind: 'mcp_tool_call',
      route: 'search_contacts',
      credential_path: 'mcp/api_key',
    });
  });

  it('checks the Origin header against loopback when no origins are configured', async () => {
    const ok = await h.mcp(ws.mcpToken, rpc('ping'), { headers: { origin: 'http://localhost:3000' } });
    expect(ok.status).toBe(200);
    const evil = await h.mcp(ws.mcpToken, rpc('ping'), { headers: { origin: 'https://evil.example' } });
    expect(evil.status).toBe(403);
    expect(evil.body.error.data.error.code).toBe('origin_not_allowed');
  });
});

describe('tools', () => {
  it('lists only the tools the credential can call, with hints and metadata', async () => {
    const narrow = await h.createCredential(ws.id, 'mcp_token', ['tasks:read', 'tasks:write']);
    const list = await h.mcp(narrow.token, rpc('tools/list'));
    const names = list.body.result.tools.map((t: any) => t.name).sort();
    expect(names).toEqual([
      'complete_task',
      'create_task',
      'enable_toolset',
      'find_tools',
      'get_current_credential',
      'get_record',
      'get_workspace_summary',
      'list_tasks',
      'update_task',
    ]);
    const complete = list.body.result.tools.find((t: any) => t.name === 'complete_task');
    expect(complete._meta).toMatchObject({
      module: 'tasks',
      deprecated: true,
      replaced_by: 'update_task',
      rest: 'PATCH /v1/tasks/{task_id}',
    });
    expect(complete.description).toMatch(/^DEPRECATED: use update_task/);
    const listTasks = list.body.result.tools.find((t: any) => t.name === 'list_tasks');
    // Hints are sent where they differ from the MCP defaults (readOnly false, destructive true, ...).
    expect(listTasks.annotations).toEqual({ readOnlyHint: true, openWorldHint: false });
    const update = list.body.result.tools.find((t: any) => t.name === 'update_task');
    expect(update.annotations).toEqual({ idempotentHint: true, openWorldHint: false });
    const create = list.body.result.tools.find((t: any) => t.name === 'create_task');
    expect(create.annotations).toEqual({ destructiveHint: false, openWorldHint: false });
    expect(listTasks.inputSchema.properties.limit).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 100,
    });
  });

  it('narrows tools with ?modules= and drops disabled modules', async () => {
    const list = await h.mcp(ws.mcpToken, rpc('tools/list'), { query: '?modules=crm' });
    // A narrowed listing keeps the discovery tools (module workspace): find_tools, enable_toolset.
    const discovery: readonly string[] = DISCOVERY_TOOLS;
    const modules = new Set(
      list.body.result.tools.filter((t: any) => !discovery.includes(t.name)).map((t: any) => t._meta.module),
    );
    expect([...modules]).toEqual(['crm']);
    const outside = await h.callTool(ws.mcpToken, 'list_tasks', {}, '?modules=crm');
    expect(outside.result.isError).toBe(true);
    expect(outside.body.error.code).toBe('tool_not_found');

    const partial = await h.workspace('Partial', ['crm', 'workspace']);
    const tools = (await h.mcp(partial.mcpToken, rpc('tools/list'))).body.result.tools.map(
      (t: any) => t._meta.module,
    );
    expect(new Set(tools)).toEqual(new Set(['crm', 'workspace']));
    const disabled = await h.callTool(partial.mcpToken, 'create_task', { title: 'x' });
    expect(disabled.body.error.code).toBe('module_not_enabled');
  });

  it('pages tools/list with a cursor, every tool exactly once', async () => {
    const names: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await h.mcp(ws.mcpToken, rpc('tools/list', cursor ? { cursor } : undefined));
      expect(page.body.result.tools.length).toBeLessThanOrEqual(100);
      names.push(...page.body.result.tools.map((t: any) => t.name));
      cursor = page.body.result.nextCursor;
      pages++;
    } while (cursor);
    const expected = buildRegistry()
      .operations.filter((op) => op.mcp)
      .map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(expected.sort());
    expect(pages).toBe(Math.ceil(expected.length / 100));
    const bad = await h.mcp(ws.mcpToken, rpc('tools/list', { cursor: 'garbage' }));
    expect(bad.body.error.code).toBe(-32602);
  });

  it('returns exactly the REST body as structuredContent and as text', async () => {
    const call = await h.callTool(ws.mcpToken, 'create_contact', {
      name: 'Via MCP',
      email: 'mcp@example.com',
    });
    expect(call.http.status).toBe(200);
    expect(call.result.isError).toBeUndefined();
    expect(JSON.parse(call.result.content[0].text)).toEqual(call.body);
    expect(call.body.request_id).toBe(call.http.headers['x-request-id']);
    const rest = await h.request('GET', `/v1/contacts/${call.body.contact.id}`, { token: ws.apiKey });
    expect(rest.body.contact).toEqual(call.body.contact);
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', call.body.request_id)
      .execute();
    expect(audit[0]).toMatchObject({ surface: 'mcp', actor_type: 'mcp_token', tool: 'create_contact' });
  });

  it('returns failures as isError results with the envelope', async () => {
    const invalid = await h.callTool(ws.mcpToken, 'create_contact', { email: 'x@example.com', extra: 1 });
    expect(invalid.http.status).toBe(200);
    expect(invalid.result.isError).toBe(true);
    expect(invalid.body.error.code).toBe('validation_failed');
    expect(invalid.body.error.field_errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'is required' },
        { field: 'extra', message: 'is not a recognized field' },
      ]),
    );
    expect(JSON.parse(invalid.result.content[0].text)).toEqual(invalid.body);
    const unknown = await h.callTool(ws.mcpToken, 'launch_rocket', {});
    expect(unknown.body.error.code).toBe('tool_not_found');
    const lookup = await h.callTool(ws.mcpToken, 'get_contact', { contact_id: 'con_x' });
    expect(lookup.body.error.code).toBe('tool_not_found');
    const scoped = await h.createCredential(ws.id, 'mcp_token', ['crm:read']);
    const denied = await h.callTool(scoped.token, 'create_contact', { name: 'x' });
    expect(denied.body.error).toMatchObject({ code: 'missing_required_scope', required_scope: 'crm:write' });
  });

  it('works without initialize and without an Accept header, and does not coerce arguments', async () => {
    const res = await h.mcp(
      ws.mcpToken,
      rpc('tools/call', { name: 'list_tasks', arguments: { limit: '5' } }),
    );
    expect(res.body.result.isError).toBe(true);
    expect(res.body.result.structuredContent.error.field_errors[0]).toEqual({
      field: 'limit',
      message: 'must be of type integer',
    });
    const over = await h.callTool(ws.mcpToken, 'list_tasks', { limit: 500 });
    expect(over.body.error.code).toBe('validation_failed');
  });
});
