// JSON-RPC message rules of /mcp: request IDs and the ?modules= filter.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TOOLS } from '../src/core/tool-profiles.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const DISCOVERY: readonly string[] = DISCOVERY_TOOLS;

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const toolModules = async (query: string) => {
  const res = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { query });
  expect(res.status, res.text).toBe(200);
  // Every narrowed listing also holds the discovery tools (find_tools, enable_toolset).
  const tools = res.body.result.tools as { name: string; _meta: { module: string } }[];
  return new Set(tools.filter((tool) => !DISCOVERY.includes(tool.name)).map((tool) => tool._meta.module));
};

describe('JSON-RPC ids', () => {
  it('answers an id that is an object, an array, a boolean or null with Invalid Request', async () => {
    for (const id of [{ a: 1 }, [1], true, false, null]) {
      for (const method of ['ping', 'tools/list', 'tools/call']) {
        const res = await h.mcp(ws.mcpToken, {
          jsonrpc: '2.0',
          id,
          method,
          params: { name: 'search_contacts', arguments: {} },
        });
        expect(res.status, JSON.stringify(id)).toBe(400);
        expect(res.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
        expect(res.body.error.data.error.field_errors).toEqual([
          { field: 'id', message: 'must be a string or a number' },
        ]);
        expect(res.headers['x-request-id']).toBe(res.body.error.data.error.request_id);
      }
    }
    // No call was made: tools/call with a bad id records nothing.
    await h.flushUsage();
    const calls = await h.db
      .selectFrom('call_events')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(calls).toEqual([]);
  });

  it('accepts string and number ids, and no id for notifications', async () => {
    for (const id of ['a', 0, 7, -1.5]) {
      const res = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id, method: 'ping' });
      expect(res.body).toEqual({ jsonrpc: '2.0', id, result: {} });
    }
    expect((await h.mcp(ws.mcpToken, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(
      202,
    );
  });
});

describe('?modules=', () => {
  it('means the same repeated as comma-separated', async () => {
    const listed = await toolModules('?modules=crm,tasks');
    expect(listed).toEqual(new Set(['crm', 'tasks']));
    expect(await toolModules('?modules=crm&modules=tasks')).toEqual(listed);
    expect(await toolModules('?modules=crm&modules=tasks,crm&modules=')).toEqual(listed);
    const call = await h.callTool(ws.mcpToken, 'list_tasks', {}, '?modules=crm&modules=tasks');
    expect(call.result.isError).toBeUndefined();
    const outside = await h.callTool(ws.mcpToken, 'list_support_tickets', {}, '?modules=crm&modules=tasks');
    expect(outside.body.error.code).toBe('tool_not_found');
  });

  it('answers an unknown module name, in either form, with a JSON-RPC error naming it', async () => {
    for (const query of ['?modules=crm,nope', '?modules=crm&modules=nope', '?modules=nope&modules=tasks']) {
      const res = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { query });
      expect(res.status, query).toBe(400);
      expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 3, error: { code: -32600 } });
      expect(res.body.error.message).toContain('"nope"');
      expect(res.body.error.data.error.code).toBe('validation_failed');
      expect(res.body.error.data.error.field_errors).toEqual([
        { field: 'modules', message: expect.stringContaining('"nope" is not a module') },
      ]);
    }
  });
});
