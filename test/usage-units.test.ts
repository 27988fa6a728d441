// Usage units: an operation declares what a call costs (default 1), a handler reports work-dependent units
// (rows scanned per thousand, documents embedded); call events carry them and billing consumes them.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../src/core/catalogue.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import { validationFailed } from '../src/core/errors.ts';
import type { ModuleDefinition } from '../src/core/module.ts';
import { Strict } from '../src/core/schema.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const base = {
  module: 'crm' as const,
  summary: 'Test operation',
  description: 'Exists only to test usage units.',
};
const write = { ...base, scopes: ['crm:write'] satisfies Scope[], kind: 'action' as const };

const testModule: ModuleDefinition = {
  name: 'crm',
  operations: [
    defineOperation({
      ...base,
      name: 'probe_scan',
      scopes: ['crm:read'],
      kind: 'read',
      input: Strict({ rows: Type.Integer({ minimum: 0 }) }),
      rest: { method: 'GET', path: '/v1/probes/scan' },
      responseKey: 'scanned',
      response: Type.Object({ scanned: Type.Integer() }, { additionalProperties: false }),
      // One unit per thousand rows scanned, at least one.
      handler: async (_ctx, { rows }) => ({
        body: { scanned: rows },
        units: Math.max(1, Math.ceil(rows / 1000)),
      }),
    }),
    defineOperation({
      ...write,
      name: 'probe_embed',
      input: Strict({ documents: Type.Array(Type.String()), fail: Type.Optional(Type.Boolean()) }),
      rest: { method: 'POST', path: '/v1/probes/embed' },
      responseKey: 'embedded',
      response: Type.Object({ embedded: Type.Integer() }, { additionalProperties: false }),
      handler: async (ctx, { documents, fail }) => {
        if (fail) throw validationFailed([{ field: 'fail', message: 'was asked to fail' }]);
        ctx.audit({ targetType: 'probe', targetId: 'embedding' });
        return { body: { embedded: documents.length }, units: documents.length };
      },
    }),
    defineOperation({
      ...write,
      name: 'probe_export',
      units: 5,
      input: Strict({}),
      rest: { method: 'POST', path: '/v1/probes/export' },
      responseKey: 'exported',
      response: Type.Object({ exported: Type.Boolean() }, { additionalProperties: false }),
      handler: async (ctx) => {
        ctx.audit({ targetType: 'probe', targetId: 'export' });
        return { body: { exported: true } };
      },
    }),
  ],
};

let h: Harness;

beforeAll(async () => {
  h = await Harness.start({ registry: buildRegistry([testModule]) });
});
afterAll(() => h.close());

const callEvent = async (requestId: string) => {
  await h.flushUsage();
  const rows = await h.db.selectFrom('call_events').selectAll().where('request_id', '=', requestId).execute();
  expect(rows).toHaveLength(1);
  return { ...rows[0]!, units: Number(rows[0]!.units), billed_units: Number(rows[0]!.billed_units) };
};
const requestId = (res: { body: any }) => res.body.request_id ?? res.body.error?.request_id;
const billing = async (ws: TestWorkspace) =>
  (await h.admin('GET', `/workspaces/${ws.id}`)).body.workspace.billing as { credit_units: number | null };
const scan = (ws: TestWorkspace, rows: number) =>
  h.request('GET', `/v1/probes/scan?rows=${rows}`, { token: ws.apiKey });
const embed = (ws: TestWorkspace, body: unknown) =>
  h.request('POST', '/v1/probes/embed', { token: ws.apiKey, body });
const exportAll = (ws: TestWorkspace) =>
  h.request('POST', '/v1/probes/export', { token: ws.apiKey, body: {} });

describe('usage units', () => {
  it('carries the units a handler reports to the call event and consumes them from credit; a failed call bills 0', async () => {
    const ws = await h.workspace('Units');
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: 10 } });

    const scanned = await scan(ws, 2500);
    expect(scanned.status).toBe(200);
    expect(await callEvent(requestId(scanned))).toMatchObject({
      http_status: 200,
      units: 3,
      billed_units: 3,
    });
    expect((await billing(ws)).credit_units).toBe(7);

    const embedded = await embed(ws, { documents: ['a', 'b', 'c'] });
    expect(embedded.status).toBe(200);
    expect(await callEvent(requestId(embedded))).toMatchObject({ units: 3, billed_units: 3 });
    expect((await billing(ws)).credit_units).toBe(4);

    const failed = await embed(ws, { documents: ['a', 'b'], fail: true });
    expect(failed.status).toBe(400);
    expect(await callEvent(requestId(failed))).toMatchObject({
      error_code: 'validation_failed',
      units: 1,
      billed_units: 0,
    });
    expect((await billing(ws)).credit_units).toBe(4);

    // MCP records the same units for the same work.
    const viaMcp = await h.callTool(ws.mcpToken, 'probe_scan', { rows: 1200 });
    expect(viaMcp.body).toMatchObject({ scanned: 1200 });
    expect(await callEvent(viaMcp.body.request_id)).toMatchObject({
      kind: 'mcp_tool_call',
      units: 2,
      billed_units: 2,
    });
    expect((await billing(ws)).credit_units).toBe(2);
  });

  it("bills declared units, and pauses a call whose declared units the credit or the month's cap does not cover", async () => {
    const ws = await h.workspace('Declared units');
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: 4 } });
    const refused = await exportAll(ws);
    expect(refused.status).toBe(402);
    expect(refused.body.error.code).toBe('billing_paused');
    expect(refused.body.error.message).toContain('5 units');
    expect((await billing(ws)).credit_units).toBe(4);

    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: 10 } });
    const exported = await exportAll(ws);
    expect(exported.status).toBe(200);
    expect(await callEvent(requestId(exported))).toMatchObject({ units: 5, billed_units: 5 });
    expect((await billing(ws)).credit_units).toBe(5);

    // The month's cap counts units: 5 used, a cap of 8 leaves room for 3, not for another export.
    await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { credit_units: null, monthly_cap_units: 8 } });
    expect((await exportAll(ws)).status).toBe(402);
    expect((await scan(ws, 3000)).status).toBe(200);
    expect((await scan(ws, 1)).status).toBe(402);
  });

  it('records reported units on reads of a workspace without billing limits', async () => {
    const ws = await h.workspace('Unlimited');
    const scanned = await scan(ws, 999_999);
    expect(scanned.status).toBe(200);
    expect(await callEvent(requestId(scanned))).toMatchObject({ units: 1000, billed_units: 1000 });
  });

  it('refuses a declaration whose units are not a whole number', () => {
    expect(() =>
      defineOperation({
        ...write,
        name: 'probe_fraction',
        units: 0.5,
        input: Strict({}),
        rest: { method: 'POST', path: '/v1/probes/fraction' },
        responseKey: 'ok',
        response: Type.Object({ ok: Type.Boolean() }),
        handler: async () => ({ body: { ok: true } }),
      }),
    ).toThrow(/units must be a whole number/);
  });

  it('consumes the declared units from the per-minute rate limit: a costly call takes more of the budget', async () => {
    const ws = await h.workspace('Costly calls');
    await h.admin('PATCH', `/workspaces/${ws.id}`, { rate_limit_per_minute: 12 });
    const first = await exportAll(ws);
    expect(first.status).toBe(200);
    expect(first.headers.ratelimit).toMatch(/^"workspace";r=7;/);
    // A one-unit call takes one.
    const cheap = await scan(ws, 10);
    expect(cheap.status).toBe(200);
    expect(cheap.headers.ratelimit).toMatch(/^"workspace";r=6;/);
    expect((await exportAll(ws)).headers.ratelimit).toMatch(/^"workspace";r=1;/);
    // 1 left: the next 5-unit call is refused.
    const refused = await exportAll(ws);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');

    // An operation costing more than the whole budget still runs once a minute, taking all of it.
    const tight = await h.workspace('Tight budget');
    await h.admin('PATCH', `/workspaces/${tight.id}`, { rate_limit_per_minute: 3 });
    const once = await exportAll(tight);
    expect(once.status).toBe(200);
    expect(once.headers.ratelimit).toMatch(/^"workspace";r=0;/);
    expect((await scan(tight, 1)).status).toBe(429);
  });
});
