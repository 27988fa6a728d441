// MCP-only tools (`rest: null`): served on /mcp with `_meta.rest: null`, no REST route, no OpenAPI entry.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation } from '../src/core/define-operation.ts';
import { Strict } from '../src/core/schema.ts';
import { crmModule } from '../src/modules/crm/index.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const mcpOnly = defineOperation({
  name: 'mcp_only_echo',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'Echo (MCP only)',
  description: 'Exists only in this test file: an MCP-only read that echoes its text.',
  input: Strict({ text: Type.String() }),
  rest: null,
  responseKey: 'text',
  response: Type.Object({ text: Type.String(), request_id: Type.String() }),
  handler: async (_ctx, input) => ({ body: { text: input.text } }),
});

describe('MCP-only operations', () => {
  let h: Harness;
  let ws: TestWorkspace;
  beforeAll(async () => {
    const registry = buildRegistry([{ ...crmModule, operations: [...crmModule.operations, mcpOnly] }]);
    h = await Harness.start({ registry });
    ws = await h.workspace();
  });
  afterAll(() => h.close());

  it('is a tool with _meta.rest null and answers tools/call', async () => {
    const listed = await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const tool = listed.body.result.tools.find((t: any) => t.name === 'mcp_only_echo');
    expect(tool._meta).toEqual({ module: 'crm', scopes: ['crm:read'], rest: null });
    const called = await h.callTool(ws.mcpToken, 'mcp_only_echo', { text: 'hi' });
    expect(called.body.text).toBe('hi');
  });

  it('has no REST route and no OpenAPI entry', async () => {
    const registry = buildRegistry([{ ...crmModule, operations: [...crmModule.operations, mcpOnly] }]);
    expect(registry.routes.some((r) => r.operation.name === 'mcp_only_echo')).toBe(false);
    const openapi = (await h.request('GET', '/openapi.json')).body;
    expect(JSON.stringify(openapi)).not.toContain('mcp_only_echo');
    expect(() => defineOperation({ ...mcpOnly, mcp: false } as any)).toThrow(/neither surface/);
  });
});
