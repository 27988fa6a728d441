// Declared responses: with WOS_VALIDATE_RESPONSES on (as in every test), a body or event that drifts from
// its declared schema fails the call loudly instead of reaching a client.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import type { ModuleDefinition } from '../src/core/module.ts';
import { Strict } from '../src/core/schema.ts';
import { crmEvents } from '../src/modules/crm/crm-events.ts';
import { contactRecord } from '../src/modules/crm/crm-records.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const contact = {
  id: 'con_01JDB3Y5Q0ZK8X4M2N7P9R6T3V',
  name: 'Ada Lovelace',
  email: 'ada@example.com',
  phone: null,
  company_id: null,
  company_name: null,
  notes: null,
  created_at: '2026-11-21T12:00:00.000Z',
  updated_at: '2026-11-21T12:00:00.000Z',
};

// Test-only operations (not in the product's registry): one answers a field its schema lacks, one emits an
// event whose data lacks a declared field, one answers what it declares.
const drifting = (name: string, path: string, handler: Parameters<typeof defineOperation>[0]['handler']) =>
  defineOperation({
    name,
    module: 'crm',
    scopes: ['crm:read'],
    kind: 'read',
    summary: 'Test operation',
    description: 'A test-only operation that checks the response check of the pipeline.',
    input: Strict({ flag: Type.Optional(Type.Boolean()) }),
    rest: { method: 'GET', path },
    responseKey: 'contact',
    handler,
  });

const testModule: ModuleDefinition = {
  name: 'crm',
  recordTypes: [contactRecord],
  events: crmEvents.filter((e) => e.name === 'contact.created'),
  operations: [
    drifting('undeclared_field', '/v1/test/undeclared', async () => ({
      body: { contact: { ...contact, secret_score: 7 } },
    })),
    drifting('wrong_type', '/v1/test/wrong-type', async () => ({
      body: { contact: { ...contact, email: 42 } },
    })),
    drifting('declared', '/v1/test/declared', async () => ({ body: { contact } })),
    drifting('drifting_event', '/v1/test/event', async (ctx) => {
      const { notes: _notes, ...withoutNotes } = contact;
      ctx.emit({ name: 'contact.created', data: withoutNotes });
      return { body: { contact } };
    }),
  ],
};

describe('declared responses', () => {
  let h: Harness;
  let ws: TestWorkspace;
  beforeAll(async () => {
    h = await Harness.start({ registry: buildRegistry([testModule]) });
    ws = await h.workspace();
  });
  afterAll(() => h.close());

  it('are checked only when WOS_VALIDATE_RESPONSES is on (off by default)', () => {
    expect(loadConfig({}).validateResponses).toBe(false);
    expect(loadConfig({ WOS_VALIDATE_RESPONSES: 'on' }).validateResponses).toBe(true);
    expect(h.config.validateResponses).toBe(true);
  });

  it('fails a body with an undeclared field as internal_error naming the operation and the field', async () => {
    const res = await h.request('GET', '/v1/test/undeclared', { token: ws.apiKey });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(res.body.error.message).toContain('undeclared_field');
    expect(res.body.error.message).toContain('contact.secret_score');
  });

  it('fails a body with a mistyped field, on MCP too', async () => {
    const res = await h.request('GET', '/v1/test/wrong-type', { token: ws.apiKey });
    expect(res.status).toBe(500);
    expect(res.body.error.message).toMatch(/wrong_type .*contact\.email must be string/);
    const mcp = await h.callTool(ws.mcpToken, 'wrong_type', {});
    expect(mcp.result.isError).toBe(true);
    expect(mcp.body.error.code).toBe('internal_error');
  });

  it('fails an event whose data drifts from the declared event schema', async () => {
    const res = await h.request('GET', '/v1/test/event', { token: ws.apiKey });
    expect(res.status).toBe(500);
    expect(res.body.error.message).toContain('contact.created');
    expect(res.body.error.message).toContain("must have required property 'notes'");
  });

  it('answers a body that matches its schema', async () => {
    const res = await h.request('GET', '/v1/test/declared', { token: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.contact).toEqual(contact);
  });
});
