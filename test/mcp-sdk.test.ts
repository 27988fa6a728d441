// Interop: the official MCP TypeScript SDK client against a running server on a real port.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

async function connect(token: string, query = '') {
  const client = new Client({ name: 'wos-interop-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

describe('official MCP SDK client', () => {
  it('initializes, lists tools, creates a contact and sees a failing call as an error result', async () => {
    const client = await connect(ws.mcpToken);
    expect(client.getServerVersion()?.name).toBe('wos');

    const { tools } = await client.listTools();
    const create = tools.find((t) => t.name === 'create_contact');
    expect(create?.inputSchema.properties).toHaveProperty('name');
    // Omitted hints take the MCP defaults: not read-only; this one says a create destroys nothing.
    expect(create?.annotations?.readOnlyHint).toBeUndefined();
    expect(create?.annotations?.destructiveHint).toBe(false);

    const created = await client.callTool({
      name: 'create_contact',
      arguments: { name: 'SDK Contact', email: 'sdk@example.com' },
    });
    expect(created.isError).toBeFalsy();
    const body = created.structuredContent as { contact: { id: string; name: string }; request_id: string };
    expect(body.contact.name).toBe('SDK Contact');
    const stored = await h.db
      .selectFrom('contacts')
      .selectAll()
      .where('id', '=', body.contact.id)
      .executeTakeFirst();
    expect(stored?.workspace_id).toBe(ws.id);

    const failed = await client.callTool({
      name: 'create_contact',
      arguments: { email: 'no-name@example.com' },
    });
    expect(failed.isError).toBe(true);
    const error = (failed.structuredContent as { error: { code: string; field_errors: unknown[] } }).error;
    expect(error.code).toBe('validation_failed');
    expect(error.field_errors).toEqual([{ field: 'name', message: 'is required' }]);

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(unknown.isError).toBe(true);
    await client.close();
  });

  it('connects with ?modules= and sees only those tools', async () => {
    const client = await connect(ws.mcpToken, '?modules=tasks');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'complete_task',
      'create_task',
      'list_tasks',
      'update_task',
    ]);
    await client.close();
  });
});
