// Narrow listings: ?profile=, ?tools= and ?modules= through the official MCP SDK client, each profile's
// tools/list under 64 KB, and the whole listing read page by page with every schema whole and strict.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCOVERY_TOOLS, PROFILE_NAMES, profileHolds } from '../src/core/tool-profiles.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { openObjects, unportable } from './helpers/tool-schema-checks.ts';

const PROFILE_BUDGET_BYTES = 64 * 1024;
const registry = buildRegistry();

let h: Harness;
let ws: TestWorkspace;
let baseUrl: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  baseUrl = await h.service.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(() => h.close());

/** An SDK client on /mcp<query>; `listed()` reads every page and counts the bytes tools/list answered. */
async function connect(token: string, query: string) {
  let listBytes = 0;
  const counting: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (typeof init?.body === 'string' && init.body.includes('"tools/list"')) {
      const text = await response.text();
      listBytes += Buffer.byteLength(text);
      return new Response(text, response);
    }
    return response;
  };
  // The SDK's own validator, compiling each outputSchema when its tool is first called rather than when it
  // is listed: a listing of 233 tools would otherwise compile 233 schemas the test never uses.
  const sdk = new AjvJsonSchemaValidator();
  const jsonSchemaValidator = {
    getValidator<T>(schema: Parameters<typeof sdk.getValidator>[0]) {
      let validate: ReturnType<typeof sdk.getValidator<T>> | undefined;
      return (input: unknown) => {
        validate ??= sdk.getValidator<T>(schema);
        return validate(input);
      };
    },
  };
  const client = new Client({ name: 'wos-profiles-test', version: '1.0.0' }, { jsonSchemaValidator });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
      fetch: counting,
    }),
  );
  const listed = async () => {
    listBytes = 0;
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined);
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return { tools, bytes: listBytes };
  };
  return { client, listed };
}

/** A listed tool's input is the operation's strict schema, whole: closed objects, no pointers, portable. */
function expectWholeStrictInput(tool: Tool) {
  const op = registry.byName.get(tool.name)!;
  expect(tool.inputSchema).toEqual(JSON.parse(JSON.stringify(op.input)));
  expect(openObjects(tool.inputSchema), tool.name).toEqual([]);
  expect(unportable(tool.inputSchema), tool.name).toEqual([]);
  expect(JSON.stringify(tool.inputSchema)).not.toContain('Same schema as');
}

describe('profiles through the official MCP SDK client', () => {
  it.each(PROFILE_NAMES)(
    'lists profile %s under 64 KB, and its reads answer as their outputSchema says',
    async (name) => {
      const { client, listed } = await connect(ws.mcpToken, `?profile=${name}`);
      const { tools, bytes } = await listed();
      expect(bytes, `${name}: ${bytes} bytes`).toBeLessThan(PROFILE_BUDGET_BYTES);
      const expected = registry.operations
        .filter(
          (op) =>
            op.mcp && (profileHolds(name, op) || (DISCOVERY_TOOLS as readonly string[]).includes(op.name)),
        )
        .map((op) => op.name);
      expect(tools.map((tool) => tool.name).sort()).toEqual(expected.sort());
      for (const tool of tools) expectWholeStrictInput(tool);

      // Every read that needs no argument, called through the client: it checks each success's
      // structuredContent against the outputSchema it listed (mcp-sdk.test.ts shows it refusing a mismatch).
      let succeeded = 0;
      for (const tool of tools.filter(
        (t) => t.annotations?.readOnlyHint && !t.inputSchema.required?.length,
      )) {
        if (tool.name === 'find_tools') continue;
        const result = await client.callTool({ name: tool.name, arguments: {} });
        if (!result.isError) succeeded++;
      }
      expect(succeeded).toBeGreaterThan(0);
      await client.close();
    },
    // A dozen calls, each compiling its (BI: large) output schema in the client: slow on a loaded machine.
    120_000,
  );

  it('lists every tool page by page when nothing narrows the listing, each input whole and strict', async () => {
    const { client, listed } = await connect(ws.mcpToken, '');
    const { tools, bytes } = await listed();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      registry.operations
        .filter((op) => op.mcp)
        .map((op) => op.name)
        .sort(),
    );
    // The whole listing is reported (npm run bench), not budgeted.
    expect(bytes).toBeGreaterThan(PROFILE_BUDGET_BYTES);
    for (const tool of tools) expectWholeStrictInput(tool);
    await client.close();
  });
});

describe('narrowing parameters', () => {
  const names = async (query: string, token = ws.mcpToken) => {
    const res = await h.mcp(token, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { query });
    expect(res.status, res.text).toBe(200);
    return (res.body.result.tools as { name: string }[]).map((tool) => tool.name).sort();
  };

  it('takes ?tools= as a comma list or repeated, with the discovery tools', async () => {
    const listed = await names('?tools=create_contact,list_tasks');
    expect(listed).toEqual(['create_contact', 'enable_toolset', 'find_tools', 'list_tasks']);
    expect(await names('?tools=create_contact&tools=list_tasks,')).toEqual(listed);
    const outside = await h.callTool(ws.mcpToken, 'create_task', { title: 'x' }, '?tools=list_tasks');
    expect(outside.body.error.code).toBe('tool_not_found');
    const inside = await h.callTool(ws.mcpToken, 'list_tasks', {}, '?tools=list_tasks');
    expect(inside.result.isError).toBeUndefined();
  });

  it('lists what ?profile=, ?modules= and ?tools= name together, narrowed by the scopes held', async () => {
    const union = await names('?profile=support,calendar&modules=tasks&tools=create_contact');
    const support = await names('?profile=support');
    expect(union).toEqual(
      expect.arrayContaining([...support, 'list_calendars', 'create_task', 'create_contact']),
    );
    expect(union).not.toContain('create_company');

    const reader = await h.createCredential(ws.id, 'mcp_token', ['crm:read']);
    expect(await names('?profile=crm', reader.token)).toEqual([
      'enable_toolset',
      'find_tools',
      'list_deal_stages',
      'list_leads',
      'list_notes',
      'search_companies',
      'search_contacts',
    ]);
  });

  it('answers unknown profiles and tools with validation_failed naming each', async () => {
    const res = await h.mcp(
      ws.mcpToken,
      { jsonrpc: '2.0', id: 7, method: 'tools/list' },
      { query: '?profile=crm,sales&tools=create_contact,make_coffee' },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 7, error: { code: -32600 } });
    expect(res.body.error.message).toContain('"sales"');
    expect(res.body.error.message).toContain('"make_coffee"');
    expect(res.body.error.data.error.field_errors).toEqual([
      { field: 'profile', message: expect.stringContaining('"sales" is not a profile; profiles: core, crm') },
      { field: 'tools', message: expect.stringContaining('"make_coffee" is not a tool') },
    ]);
    // A REST-only operation is not a tool either.
    const lookup = await h.mcp(
      ws.mcpToken,
      { jsonrpc: '2.0', id: 8, method: 'tools/list' },
      { query: '?tools=get_contact' },
    );
    expect(lookup.body.error.data.error.field_errors[0].field).toBe('tools');
  });
});
