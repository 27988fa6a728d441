// Deal stages and deals: built-in and custom stages, stage changes with closed_at, dry-run previews on the
// shared PATCH route, and the crm summary's open deals.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const auditsOf = (requestId: string) =>
  h.db.selectFrom('audit_events').selectAll().where('request_id', '=', requestId).orderBy('id').execute();
const eventsOf = (requestId: string) =>
  h.db.selectFrom('outbox_events').selectAll().where('request_id', '=', requestId).orderBy('id').execute();
const dealRow = (id: string) =>
  h.db.selectFrom('deals').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('deal stages', () => {
  it('lists the built-in stages in every workspace, with custom stages ordered by position', async () => {
    const fresh = await h.workspace('Fresh');
    const builtIn = await h.request('GET', '/v1/deal-stages', { token: fresh.apiKey });
    expect(builtIn.status).toBe(200);
    expect(builtIn.body.stages.map((s: any) => [s.key, s.kind, s.built_in])).toEqual([
      ['new', 'open', true],
      ['qualified', 'open', true],
      ['proposal', 'open', true],
      ['won', 'won', true],
      ['lost', 'lost', true],
    ]);

    const negotiation = await post('/v1/deal-stages', {
      key: 'negotiation',
      name: 'Negotiation',
      probability: 70,
    });
    expect(negotiation.status).toBe(201);
    expect(negotiation.body.stage).toMatchObject({
      key: 'negotiation',
      kind: 'open',
      position: 31,
      built_in: false,
    });
    expect(negotiation.body.stage.id).toMatch(/^dstg_/);
    const discovery = await post('/v1/deal-stages', { key: 'discovery', name: 'Discovery', position: 15 });
    const churned = await post('/v1/deal-stages', { key: 'churned', name: 'Churned', kind: 'lost' });
    expect(churned.body.stage.position).toBe(101);

    const all = await get('/v1/deal-stages');
    expect(all.body.stages.map((s: any) => s.key)).toEqual([
      'new',
      'discovery',
      'qualified',
      'proposal',
      'negotiation',
      'won',
      'lost',
      'churned',
    ]);
    const stored = await h.db
      .selectFrom('deal_stages')
      .select('key')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(stored.map((r) => r.key).sort()).toEqual(['churned', 'discovery', 'negotiation']);

    // Keyset pages of 3 walk the same order, built-in and custom alike.
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(`/v1/deal-stages?limit=3${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.body.stages.length).toBeLessThanOrEqual(3);
      keys.push(...page.body.stages.map((s: any) => s.key));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(keys).toEqual(all.body.stages.map((s: any) => s.key));

    const searched = await get('/v1/deal-stages?query=N');
    expect(searched.body.stages.map((s: any) => s.key)).toEqual(
      ['new', 'won', 'negotiation', 'churned'].sort(
        (a, b) =>
          all.body.stages.findIndex((s: any) => s.key === a) -
          all.body.stages.findIndex((s: any) => s.key === b),
      ),
    );
    const lookup = await get(`/v1/deal-stages/${discovery.body.stage.id}`);
    expect(lookup.body.stage.key).toBe('discovery');
  });

  it('rejects bad, duplicate and built-in keys on field key, and stores nothing', async () => {
    const before = await h.db
      .selectFrom('deal_stages')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    for (const [key, message] of [
      ['Has-Caps', 'pattern'],
      ['negotiation', 'already exists'],
      ['won', 'built-in'],
    ] as const) {
      const res = await post('/v1/deal-stages', { key, name: 'x' });
      expect(res.status, key).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.field_errors[0].field).toBe('key');
      expect(res.body.error.field_errors[0].message).toContain(message);
    }
    const negative = await post('/v1/deal-stages', { key: 'neg', name: 'x', position: -1, probability: -5 });
    expect(negative.body.error.field_errors.map((e: any) => e.field).sort()).toEqual([
      'position',
      'probability',
    ]);
    const after = await h.db
      .selectFrom('deal_stages')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(after.length).toBe(before.length);
  });
});

describe('deals', () => {
  it('creates deals in built-in and custom stages, with defaults and closed_at for closed stages', async () => {
    const plain = await post('/v1/deals', { name: 'Plain' });
    expect(plain.status).toBe(201);
    expect(plain.body.deal).toMatchObject({
      stage: 'new',
      stage_key: 'new',
      amount_cents: 0,
      currency: 'USD',
      closed_at: null,
    });
    const custom = await post('/v1/deals', {
      name: 'Custom',
      stage_key: 'negotiation',
      amount_cents: 125_000,
      currency: 'EUR',
    });
    expect(custom.body.deal).toMatchObject({ stage: 'negotiation', amount_cents: 125_000, currency: 'EUR' });
    const viaStage = await post('/v1/deals', { name: 'Via stage', stage: 'churned' });
    expect(viaStage.body.deal.stage).toBe('churned');
    expect(viaStage.body.deal.closed_at).toBe(h.clock.now().toISOString());
    const both = await post('/v1/deals', { name: 'Both', stage: 'won', stage_key: 'won' });
    expect(both.body.deal.closed_at).not.toBeNull();
    const task = await post('/v1/tasks', {
      title: 'Follow up',
      related_resource_type: 'deal',
      related_resource_id: plain.body.deal.id,
    });
    expect(task.status).toBe(201);
    const activity = await post('/v1/activities', {
      type: 'call',
      summary: 'Pricing call',
      related_resource_type: 'deal',
      related_resource_id: custom.body.deal.id,
    });
    expect(activity.status).toBe(201);
    const row = await dealRow(custom.body.deal.id);
    expect(row).toMatchObject({
      workspace_id: ws.id,
      stage_key: 'negotiation',
      amount_cents: 125_000,
      currency: 'EUR',
    });
    const events = await eventsOf(custom.body.request_id);
    expect(events.map((e) => e.name)).toEqual(['deal.created']);
  });

  it('fails validation on the stage field it was given, and on stage and stage_key that disagree', async () => {
    const before = await h.db.selectFrom('deals').select('id').where('workspace_id', '=', ws.id).execute();
    const unknownKey = await post('/v1/deals', { name: 'x', stage_key: 'nope' });
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.error.field_errors).toEqual([
      { field: 'stage_key', message: expect.stringContaining('nope') },
    ]);
    const unknownStage = await post('/v1/deals', { name: 'x', stage: 'nope' });
    expect(unknownStage.body.error.field_errors[0].field).toBe('stage');
    const disagree = await post('/v1/deals', { name: 'x', stage: 'won', stage_key: 'lost' });
    expect(disagree.body.error.field_errors[0].field).toBe('stage');
    const negative = await post('/v1/deals', { name: 'x', amount_cents: -1 });
    expect(negative.body.error.field_errors[0].field).toBe('amount_cents');
    const currency = await post('/v1/deals', { name: 'x', currency: 'usd' });
    expect(currency.body.error.field_errors[0].field).toBe('currency');
    const company = await post('/v1/deals', { name: 'x', company_id: 'cmp_missing' });
    expect(company.status).toBe(404);
    expect(company.body.error.code).toBe('resource_not_found');
    const contact = await post('/v1/deals', { name: 'x', contact_id: 'con_missing' });
    expect(contact.status).toBe(404);
    const after = await h.db.selectFrom('deals').select('id').where('workspace_id', '=', ws.id).execute();
    expect(after.length).toBe(before.length);
  });

  it('update_deal moves stages (closed_at set and cleared), merges custom_fields and audits the changed fields', async () => {
    const company = (await post('/v1/companies', { name: 'Deal Co' })).body.company;
    const contact = (await post('/v1/contacts', { name: 'Deal Person', company_id: company.id })).body
      .contact;
    const deal = (
      await post('/v1/deals', {
        name: 'Moving',
        company_id: company.id,
        contact_id: contact.id,
        amount_cents: 5000,
        custom_fields: { tier: 'gold', seats: 10 },
      })
    ).body.deal;
    expect(deal).toMatchObject({
      company_id: company.id,
      contact_id: contact.id,
      custom_fields: { tier: 'gold', seats: 10 },
    });

    const toCustom = await patch(`/v1/deals/${deal.id}`, {
      stage_key: 'negotiation',
      custom_fields: { seats: 12, tier: null, region: 'eu' },
    });
    expect(toCustom.status).toBe(200);
    expect(toCustom.body.deal).toMatchObject({
      stage: 'negotiation',
      closed_at: null,
      custom_fields: { seats: 12, region: 'eu' },
    });
    expect((await auditsOf(toCustom.body.request_id)).map((a) => JSON.parse(a.changed_fields))).toEqual([
      ['stage', 'custom_fields'],
    ]);
    const customEvents = await eventsOf(toCustom.body.request_id);
    expect(customEvents.map((e) => e.name)).toEqual(['deal.stage_changed', 'deal.updated']);
    expect(JSON.parse(customEvents[0]!.payload)).toMatchObject({
      id: deal.id,
      stage: 'negotiation',
      previous_stage: 'new',
    });

    h.clock.advance(60_000);
    const won = await patch(`/v1/deals/${deal.id}`, { stage: 'won', amount_cents: 7500 });
    expect(won.body.deal).toMatchObject({
      stage: 'won',
      amount_cents: 7500,
      closed_at: h.clock.now().toISOString(),
    });
    expect(await dealRow(deal.id)).toMatchObject({
      stage_key: 'won',
      amount_cents: 7500,
      closed_at: h.clock.now().toISOString(),
    });

    const reopened = await h.callTool(ws.mcpToken, 'update_deal', {
      deal_id: deal.id,
      stage_key: 'proposal',
      currency: 'GBP',
    });
    expect(reopened.result.isError).toBeUndefined();
    expect(reopened.body.deal).toMatchObject({ stage: 'proposal', currency: 'GBP', closed_at: null });
    expect((await dealRow(deal.id)).closed_at).toBeNull();

    const same = await patch(`/v1/deals/${deal.id}`, { stage_key: 'proposal' });
    expect(same.status).toBe(200);
    expect(await eventsOf(same.body.request_id)).toEqual([]);
    expect(JSON.parse((await auditsOf(same.body.request_id))[0]!.changed_fields)).toEqual([]);

    const empty = await patch(`/v1/deals/${deal.id}`, {});
    expect(empty.status).toBe(400);
    const unknown = await patch(`/v1/deals/${deal.id}`, { stage_key: 'nope' });
    expect(unknown.body.error.field_errors[0].field).toBe('stage_key');
    const missing = await patch('/v1/deals/deal_missing', { stage_key: 'won' });
    expect(missing.status).toBe(404);
    const history = await get(`/v1/history?target_type=deal&target_id=${deal.id}`);
    expect(history.body.entries.map((e: any) => e.tool)).toEqual([
      'update_deal',
      'update_deal',
      'update_deal',
      'update_deal',
      'create_deal',
    ]);
  });
});

describe('update_deal_stage and dry_run on PATCH /v1/deals/{deal_id}', () => {
  it('previews over MCP: the deal as it would be, the changes, no write and no audit event, a usage event', async () => {
    const deal = (await post('/v1/deals', { name: 'Preview', amount_cents: 100 })).body.deal;
    const before = await dealRow(deal.id);
    const preview = await h.callTool(ws.mcpToken, 'update_deal_stage', {
      deal_id: deal.id,
      stage: 'won',
      dry_run: true,
    });
    expect(preview.result.isError).toBeUndefined();
    expect(preview.body).toMatchObject({
      dry_run: true,
      deal: { id: deal.id, stage: 'won', closed_at: h.clock.now().toISOString() },
      changes: [
        { field: 'stage', from: 'new', to: 'won' },
        { field: 'closed_at', from: null, to: h.clock.now().toISOString() },
      ],
    });
    expect(preview.body.request_id).toBeDefined();
    expect(await dealRow(deal.id)).toEqual(before);
    expect(await auditsOf(preview.body.request_id)).toEqual([]);
    expect(await eventsOf(preview.body.request_id)).toEqual([]);
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', preview.body.request_id)
      .execute();
    expect(calls).toMatchObject([{ kind: 'mcp_tool_call', http_status: 200, billed_units: 1 }]);

    const invalid = await h.callTool(ws.mcpToken, 'update_deal_stage', {
      deal_id: deal.id,
      stage: 'negotiation',
      dry_run: true,
    });
    expect(invalid.body.error.code).toBe('validation_failed');

    const applied = await h.callTool(ws.mcpToken, 'update_deal_stage', { deal_id: deal.id, stage: 'lost' });
    expect(applied.body.deal.stage).toBe('lost');
    expect((await dealRow(deal.id)).stage_key).toBe('lost');
    const audits = await auditsOf(applied.body.request_id);
    expect(audits).toMatchObject([{ tool: 'update_deal_stage', target_type: 'deal', target_id: deal.id }]);
  });

  it("REST: a body with dry_run takes update_deal's fields and previews them; without dry_run update_deal serves it", async () => {
    const deal = (
      await post('/v1/deals', { name: 'REST preview', amount_cents: 100, custom_fields: { a: 1 } })
    ).body.deal;
    const before = await dealRow(deal.id);
    const preview = await patch(`/v1/deals/${deal.id}`, {
      stage_key: 'negotiation',
      amount_cents: 900,
      custom_fields: { a: null, b: 'x' },
      dry_run: true,
    });
    expect(preview.status).toBe(200);
    expect(preview.body).toMatchObject({
      dry_run: true,
      deal: { stage: 'negotiation', amount_cents: 900, custom_fields: { b: 'x' } },
      changes: [
        { field: 'stage', from: 'new', to: 'negotiation' },
        { field: 'amount_cents', from: 100, to: 900 },
        { field: 'custom_fields', from: { a: 1 }, to: { b: 'x' } },
      ],
    });
    expect(await dealRow(deal.id)).toEqual(before);
    expect(await auditsOf(preview.body.request_id)).toEqual([]);
    const call = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', preview.body.request_id)
      .executeTakeFirstOrThrow();
    expect(call).toMatchObject({ kind: 'api_request', route: 'PATCH /v1/deals/{deal_id}', billed_units: 1 });

    const badPreview = await patch(`/v1/deals/${deal.id}`, { stage_key: 'nope', dry_run: true });
    expect(badPreview.body.error.field_errors[0].field).toBe('stage_key');
    const unknownField = await patch(`/v1/deals/${deal.id}`, {
      stage_key: 'won',
      dry_run: true,
      colour: 'red',
    });
    expect(unknownField.body.error.field_errors[0].field).toBe('colour');

    const applied = await patch(`/v1/deals/${deal.id}`, { stage_key: 'negotiation', dry_run: false });
    expect(applied.body.deal.stage).toBe('negotiation');
    expect(applied.body.dry_run).toBeUndefined();
    expect((await dealRow(deal.id)).stage_key).toBe('negotiation');
    const plain = await patch(`/v1/deals/${deal.id}`, { stage_key: 'won' });
    expect(plain.body.changes).toBeUndefined();
    expect((await auditsOf(plain.body.request_id))[0]!.tool).toBe('update_deal');
  });

  it('is documented: update_deal_stage is deprecated, the route body has dry_run, the tools keep their schemas', async () => {
    const openapi = (await h.request('GET', '/openapi.json')).body;
    const route = openapi.paths['/v1/deals/{deal_id}'].patch;
    expect(route.operationId).toBe('update_deal');
    const body = route.requestBody.content['application/json'].schema;
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(['stage', 'stage_key', 'amount_cents', 'dry_run']),
    );
    expect(route.description).toContain('update_deal_stage');
    const tools = (await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result
      .tools;
    const deprecated = tools.find((t: any) => t.name === 'update_deal_stage');
    expect(deprecated._meta).toMatchObject({ deprecated: true, replaced_by: 'update_deal', dry_run: true });
    expect(deprecated.inputSchema.required).toEqual(['deal_id', 'stage']);
    expect(deprecated.inputSchema.properties.stage.enum).toEqual([
      'new',
      'qualified',
      'proposal',
      'won',
      'lost',
    ]);
    const update = tools.find((t: any) => t.name === 'update_deal');
    expect(update.inputSchema.properties.dry_run).toBeUndefined();
  });
});

describe('workspace summary', () => {
  it('reports open deals and their value by currency', async () => {
    const other = await h.workspace('Summary');
    const call = (url: string, body: unknown) => h.request('POST', url, { token: other.apiKey, body });
    await call('/v1/deals', { name: 'A', amount_cents: 1000 });
    await call('/v1/deals', { name: 'B', amount_cents: 2500, stage_key: 'proposal' });
    await call('/v1/deals', { name: 'C', amount_cents: 700, currency: 'EUR' });
    await call('/v1/deals', { name: 'Won', amount_cents: 99_999, stage_key: 'won' });
    await call('/v1/contacts', { name: 'Someone' });
    const summary = await h.request('GET', '/v1/workspace', { token: other.apiKey });
    expect(summary.body.workspace.summary.crm).toEqual({
      contacts: 1,
      companies: 0,
      open_deals: { count: 3, amount_cents_by_currency: { USD: 3500, EUR: 700 } },
    });
  });
});
