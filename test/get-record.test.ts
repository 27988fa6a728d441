// get_record: the record lookups of every type as one MCP tool (and GET /v1/records/{type}/{id}), with the
// read scope of the type asked for checked when the call executes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let contactId: string;
let taskId: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  contactId = (await h.request('POST', '/v1/contacts', { token: ws.apiKey, body: { name: 'Ada Lovelace' } }))
    .body.contact.id;
  taskId = (await h.request('POST', '/v1/tasks', { token: ws.apiKey, body: { title: 'Call Ada' } })).body.task
    .id;
});
afterAll(() => h.close());

describe('get_record', () => {
  it('returns the record the type lookup returns, on MCP and on REST', async () => {
    const lookup = await h.request('GET', `/v1/contacts/${contactId}`, { token: ws.apiKey });
    const call = await h.callTool(ws.mcpToken, 'get_record', { type: 'contact', id: contactId });
    expect(call.result.isError).toBeUndefined();
    expect(call.body).toEqual({
      type: 'contact',
      record: lookup.body.contact,
      request_id: call.body.request_id,
    });
    const rest = await h.request('GET', `/v1/records/task/${taskId}`, { token: ws.apiKey });
    expect(rest.status).toBe(200);
    expect(rest.body.record).toEqual(
      (await h.request('GET', `/v1/tasks/${taskId}`, { token: ws.apiKey })).body.task,
    );
  });

  it('needs the read scope of the type asked for, checked at execution', async () => {
    const tasksOnly = (await h.createCredential(ws.id, 'mcp_token', ['tasks:read'])).token;
    const tools = (await h.mcp(tasksOnly, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools;
    expect(tools.map((t: any) => t.name)).toContain('get_record');
    const refused = await h.callTool(tasksOnly, 'get_record', { type: 'contact', id: contactId });
    expect(refused.result.isError).toBe(true);
    expect(refused.body.error).toMatchObject({ code: 'missing_required_scope', required_scope: 'crm:read' });
    const allowed = await h.callTool(tasksOnly, 'get_record', { type: 'task', id: taskId });
    expect(allowed.body.record.id).toBe(taskId);
    // Without any read scope the tool is not listed, and a call stops at the scope stage.
    const writer = (await h.createCredential(ws.id, 'mcp_token', ['crm:write'])).token;
    const listed = (await h.mcp(writer, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools;
    expect(listed.map((t: any) => t.name)).not.toContain('get_record');
    const none = await h.callTool(writer, 'get_record', { type: 'contact', id: contactId });
    expect(none.body.error.code).toBe('missing_required_scope');
  });

  it('refuses an unknown type on field type, listing the valid types', async () => {
    const call = await h.callTool(ws.mcpToken, 'get_record', { type: 'contacts', id: contactId });
    expect(call.result.isError).toBe(true);
    expect(call.body.error.code).toBe('validation_failed');
    const types = [...buildRegistry().recordTypes.keys()];
    expect(call.body.error.field_errors).toEqual([
      { field: 'type', message: `must be one of: ${types.join(', ')}` },
    ]);
  });

  it("answers resource_not_found for another workspace's record and for a type's module that is off", async () => {
    const other = await h.workspace('Other tenant');
    const theirs = await h.request('POST', '/v1/contacts', {
      token: other.apiKey,
      body: { name: 'Grace Hopper' },
    });
    const call = await h.callTool(ws.mcpToken, 'get_record', { type: 'contact', id: theirs.body.contact.id });
    expect(call.result.isError).toBe(true);
    expect(call.body.error.code).toBe('resource_not_found');
    expect(call.body.error.message).not.toContain(other.id);
    // An ID of another type is not found either: the type decides the table.
    const mismatched = await h.callTool(ws.mcpToken, 'get_record', { type: 'task', id: contactId });
    expect(mismatched.body.error.code).toBe('resource_not_found');

    const noCrm = await h.workspace('No CRM', ['tasks', 'workspace']);
    const off = await h.callTool(noCrm.mcpToken, 'get_record', { type: 'contact', id: contactId });
    expect(off.body.error.code).toBe('module_not_enabled');
  });
});
