// Interop: the official MCP TypeScript SDK client against a running server on a real port.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
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

type Fetch = typeof fetch;

async function connect(
  token: string,
  query = '',
  options: { validator?: AjvJsonSchemaValidator; fetch?: Fetch } = {},
) {
  const client = new Client(
    { name: 'wos-interop-test', version: '1.0.0' },
    options.validator ? { jsonSchemaValidator: options.validator } : {},
  );
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp${query}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    ...(options.fetch ? { fetch: options.fetch } : {}),
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
      'enable_toolset',
      'find_tools',
      'list_tasks',
      'update_task',
    ]);
    await client.close();
  });

  it("validates each success's structuredContent against the listed outputSchema, and refuses a mismatch", async () => {
    // The SDK client compiles each listed outputSchema and runs it on every result of that tool.
    const checked: boolean[] = [];
    const validator = new AjvJsonSchemaValidator();
    const getValidator = validator.getValidator.bind(validator);
    validator.getValidator = <T>(schema: Parameters<typeof getValidator>[0]) => {
      const validate = getValidator<T>(schema);
      return (input: unknown) => {
        const verdict = validate(input);
        checked.push(verdict.valid);
        return verdict;
      };
    };
    const client = await connect(ws.mcpToken, '?profile=crm', { validator });
    await client.listTools();
    await client.callTool({ name: 'create_contact', arguments: { name: 'Checked Contact' } });
    await client.callTool({ name: 'search_contacts', arguments: { query: 'Checked' } });
    expect(checked).toEqual([true, true]);
    await client.close();

    // The same call against a listing whose schema demands a field the body lacks: the client throws.
    const demanding: Fetch = async (input, init) => {
      const response = await fetch(input, init);
      const text = await response.text();
      const body =
        text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : undefined;
      for (const tool of body?.result?.tools ?? []) tool.outputSchema.anyOf[0].required.push('missing_field');
      return new Response(body ? JSON.stringify(body) : text, response);
    };
    const strict = await connect(ws.mcpToken, '?profile=crm', { fetch: demanding });
    await strict.listTools();
    await expect(
      strict.callTool({ name: 'create_contact', arguments: { name: 'Refused Contact' } }),
    ).rejects.toThrow(/does not match the tool's output schema/);
    await strict.close();
  });
});
