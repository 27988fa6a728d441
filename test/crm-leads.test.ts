// Leads: creation, filters (custom fields included) and conversion into contact, company and deal.
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
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const count = async (table: 'contacts' | 'companies' | 'deals' | 'leads', workspaceId = ws.id) =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow()
    ).n,
  );
const counts = async () => ({
  contacts: await count('contacts'),
  companies: await count('companies'),
  deals: await count('deals'),
});

describe('leads', () => {
  it('start as new, keep their fields and default the source to the surface', async () => {
    const rest = await post('/v1/leads', {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      phone: '+44 1',
      company_name: 'Analytical Engines',
      title: 'CTO',
      score: 80,
      custom_fields: { tier: 'gold', seats: 25, trial: true, gone: null },
    });
    expect(rest.status).toBe(201);
    expect(rest.body.lead).toMatchObject({
      name: 'Ada Lovelace',
      status: 'new',
      source: 'api',
      score: 80,
      custom_fields: { tier: 'gold', seats: 25, trial: true },
      converted_contact_id: null,
    });
    expect(rest.body.lead.id).toMatch(/^lead_/);
    const row = await h.db
      .selectFrom('leads')
      .selectAll()
      .where('id', '=', rest.body.lead.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ workspace_id: ws.id, status: 'new', source: 'api' });
    const fields = await h.db
      .selectFrom('lead_custom_fields')
      .selectAll()
      .where('lead_id', '=', rest.body.lead.id)
      .orderBy('key')
      .execute();
    expect(fields.map((f) => [f.key, f.value_text])).toEqual([
      ['seats', '25'],
      ['tier', 'gold'],
      ['trial', 'true'],
    ]);
    const mcp = await h.callTool(ws.mcpToken, 'create_lead', { name: 'Grace Hopper', source: 'referral' });
    expect(mcp.body.lead).toMatchObject({ source: 'referral', status: 'new' });
    const viaMcp = await h.callTool(ws.mcpToken, 'create_lead', { name: 'Via MCP' });
    expect(viaMcp.body.lead.source).toBe('mcp');
    const lookup = await get(`/v1/leads/${rest.body.lead.id}`);
    expect(lookup.body.lead).toEqual(rest.body.lead);
  });

  it('validates name, email, source and score', async () => {
    const before = await count('leads');
    const res = await post('/v1/leads', { email: 'not-an-email', source: 'fax', score: -1, extra: 1 });
    expect(res.status).toBe(400);
    expect(res.body.error.field_errors.map((e: any) => e.field).sort()).toEqual([
      'email',
      'extra',
      'name',
      'score',
      'source',
    ]);
    expect(await count('leads')).toBe(before);
  });

  it('list_leads filters by query, status, source and custom fields compared as text', async () => {
    const other = await h.workspace('Leads filter');
    const make = (body: unknown) => h.request('POST', '/v1/leads', { token: other.apiKey, body });
    const list = async (qs: string) =>
      (await h.request('GET', `/v1/leads?${qs}`, { token: other.apiKey })).body.leads.map((l: any) => l.name);
    await make({
      name: 'Alpha',
      email: 'a@alpha.io',
      source: 'website',
      custom_fields: { tier: 'gold', seats: 10, vip: true },
    });
    await make({
      name: 'Beta',
      title: 'Head of Alpha Ops',
      source: 'referral',
      custom_fields: { tier: 'silver', seats: 10.5 },
    });
    await make({
      name: 'Gamma',
      company_name: 'ALPHACORP',
      source: 'website',
      custom_fields: { tier: 'gold', vip: false },
    });
    await make({ name: 'Delta', source: 'campaign' });

    expect(await list('query=alpha')).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(await list('source=website')).toEqual(['Gamma', 'Alpha']);
    expect(await list('status=new&source=campaign')).toEqual(['Delta']);
    expect(await list('status=converted')).toEqual([]);
    expect(await list('custom_field_key=tier&custom_field_value=gold')).toEqual(['Gamma', 'Alpha']);
    expect(await list('custom_field_key=seats&custom_field_value=10')).toEqual(['Alpha']);
    expect(await list('custom_field_key=seats&custom_field_value=10.5')).toEqual(['Beta']);
    expect(await list('custom_field_key=vip&custom_field_value=true')).toEqual(['Alpha']);
    expect(await list('custom_field_key=vip&custom_field_value=false')).toEqual(['Gamma']);
    expect(await list('custom_field_key=vip')).toEqual(['Gamma', 'Alpha']);
    expect(await list('custom_field_key=tier&custom_field_value=gold&query=gam')).toEqual(['Gamma']);
    expect(await list('custom_field_key=missing&custom_field_value=gold')).toEqual([]);
    const mcp = await h.callTool(other.mcpToken, 'list_leads', {
      custom_field_key: 'tier',
      custom_field_value: 'silver',
    });
    expect(mcp.body.leads.map((l: any) => l.name)).toEqual(['Beta']);

    const page = await h.request('GET', '/v1/leads?limit=2&custom_field_key=tier', { token: other.apiKey });
    expect(page.body.leads.map((l: any) => l.name)).toEqual(['Gamma', 'Beta']);
    const next = await h.request(
      'GET',
      `/v1/leads?limit=2&custom_field_key=tier&cursor=${page.body.next_cursor}`,
      { token: other.apiKey },
    );
    expect(next.body.leads.map((l: any) => l.name)).toEqual(['Alpha']);
    expect(next.body.next_cursor).toBeUndefined();

    const valueAlone = await h.request('GET', '/v1/leads?custom_field_value=gold', { token: other.apiKey });
    expect(valueAlone.body.error.field_errors).toEqual([
      { field: 'custom_field_key', message: expect.any(String) },
    ]);
    const badStatus = await h.request('GET', '/v1/leads?status=won', { token: other.apiKey });
    expect(badStatus.body.error.field_errors[0].field).toBe('status');
  });
});

describe('convert_lead', () => {
  it('creates the contact and the company from the lead, in one request with one audit event per record', async () => {
    const lead = (
      await post('/v1/leads', {
        name: 'Linus',
        email: 'linus@example.com',
        phone: '555',
        company_name: 'Kernel Inc',
      })
    ).body.lead;
    const res = await post(`/v1/leads/${lead.id}/convert`, { conversion_reason: 'Booked a demo' });
    expect(res.status).toBe(200);
    expect(res.body.lead).toMatchObject({
      id: lead.id,
      status: 'converted',
      conversion_reason: 'Booked a demo',
      converted_contact_id: res.body.contact.id,
      converted_company_id: res.body.company.id,
      converted_deal_id: null,
      converted_at: h.clock.now().toISOString(),
    });
    expect(res.body.contact).toMatchObject({
      name: 'Linus',
      email: 'linus@example.com',
      phone: '555',
      company_id: res.body.company.id,
      company_name: 'Kernel Inc',
    });
    expect(res.body.company).toMatchObject({ name: 'Kernel Inc' });
    expect(res.body.deal).toBeUndefined();
    expect(res.body.request_id).toBeDefined();

    const contact = await h.db
      .selectFrom('contacts')
      .selectAll()
      .where('id', '=', res.body.contact.id)
      .executeTakeFirstOrThrow();
    expect(contact).toMatchObject({ workspace_id: ws.id, company_id: res.body.company.id });
    const stored = await h.db
      .selectFrom('leads')
      .selectAll()
      .where('id', '=', lead.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ status: 'converted', converted_contact_id: res.body.contact.id });

    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .orderBy('id')
      .execute();
    expect(audits.map((a) => [a.target_type, a.action, a.tool])).toEqual([
      ['company', 'create', 'convert_lead'],
      ['contact', 'create', 'convert_lead'],
      ['lead', 'convert', 'convert_lead'],
    ]);
    const events = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.name)).toEqual(['company.created', 'contact.created', 'lead.converted']);
    expect(JSON.parse(events[2]!.payload)).toMatchObject({
      lead: { id: lead.id },
      contact: { id: res.body.contact.id },
    });
  });

  it("uses the given contact and company, and creates a deal with the lead's name in a custom stage", async () => {
    const company = (await post('/v1/companies', { name: 'Existing Co' })).body.company;
    const contact = (await post('/v1/contacts', { name: 'Existing Person', company_id: company.id })).body
      .contact;
    await post('/v1/deal-stages', { key: 'demo_booked', name: 'Demo booked' });
    const lead = (await post('/v1/leads', { name: 'Big Opportunity', company_name: 'Ignored Ltd' })).body
      .lead;
    const before = await counts();
    const res = await h.callTool(ws.mcpToken, 'convert_lead', {
      lead_id: lead.id,
      contact_id: contact.id,
      company_id: company.id,
      create_deal: true,
      stage_key: 'demo_booked',
      amount_cents: 420_000,
      currency: 'EUR',
    });
    expect(res.result.isError).toBeUndefined();
    expect(res.body.contact.id).toBe(contact.id);
    expect(res.body.company.id).toBe(company.id);
    expect(res.body.deal).toMatchObject({
      name: 'Big Opportunity',
      stage: 'demo_booked',
      amount_cents: 420_000,
      currency: 'EUR',
      company_id: company.id,
      contact_id: contact.id,
    });
    expect(await counts()).toEqual({ ...before, deals: before.deals + 1 });
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .orderBy('id')
      .execute();
    expect(audits.map((a) => a.target_type)).toEqual(['deal', 'lead']);
  });

  it('creates the contact only when the lead has no company_name, and defaults the deal', async () => {
    const lead = (await post('/v1/leads', { name: 'Solo', email: 'solo@example.com' })).body.lead;
    const res = await post(`/v1/leads/${lead.id}/convert`, { create_deal: true, deal_name: 'Solo deal' });
    expect(res.body.company).toBeUndefined();
    expect(res.body.contact).toMatchObject({ name: 'Solo', company_id: null, company_name: null });
    expect(res.body.deal).toMatchObject({
      name: 'Solo deal',
      stage: 'new',
      amount_cents: 0,
      currency: 'USD',
      contact_id: res.body.contact.id,
    });
    expect(res.body.lead).toMatchObject({ converted_company_id: null, converted_deal_id: res.body.deal.id });
  });

  it('returns the same records when converting again, and creates nothing', async () => {
    const lead = (await post('/v1/leads', { name: 'Twice', company_name: 'Twice Co' })).body.lead;
    const first = await post(`/v1/leads/${lead.id}/convert`, { create_deal: true, amount_cents: 100 });
    const before = await counts();
    const again = await post(`/v1/leads/${lead.id}/convert`, { create_deal: true, amount_cents: 100 });
    expect(again.status).toBe(200);
    const { request_id: _a, ...firstBody } = first.body;
    const { request_id: _b, ...againBody } = again.body;
    expect(againBody).toEqual(firstBody);
    expect(await counts()).toEqual(before);
    const bare = await h.callTool(ws.mcpToken, 'convert_lead', { lead_id: lead.id });
    expect(bare.body.deal.id).toBe(first.body.deal.id);
    const events = await h.db
      .selectFrom('outbox_events')
      .selectAll()
      .where('request_id', '=', again.body.request_id)
      .execute();
    expect(events).toEqual([]);

    const otherContact = (await post('/v1/contacts', { name: 'Someone else' })).body.contact;
    const conflicting = await post(`/v1/leads/${lead.id}/convert`, { contact_id: otherContact.id });
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error.field_errors[0].field).toBe('contact_id');
  });

  it('leaves nothing behind when it fails half-way, and 404s on unknown records', async () => {
    const lead = (await post('/v1/leads', { name: 'Half way', company_name: 'Half Co' })).body.lead;
    const before = await counts();
    const failed = await post(`/v1/leads/${lead.id}/convert`, {
      create_deal: true,
      stage_key: 'no_such_stage',
    });
    expect(failed.status).toBe(400);
    expect(failed.body.error.field_errors[0].field).toBe('stage_key');
    expect(await counts()).toEqual(before);
    const stored = await h.db
      .selectFrom('leads')
      .selectAll()
      .where('id', '=', lead.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ status: 'new', converted_contact_id: null, converted_company_id: null });
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', failed.body.error.request_id)
      .execute();
    expect(audits).toEqual([]);

    const missingContact = await post(`/v1/leads/${lead.id}/convert`, { contact_id: 'con_missing' });
    expect(missingContact.status).toBe(404);
    const missingCompany = await post(`/v1/leads/${lead.id}/convert`, { company_id: 'cmp_missing' });
    expect(missingCompany.status).toBe(404);
    const missingLead = await post('/v1/leads/lead_missing/convert', {});
    expect(missingLead.status).toBe(404);
    expect(missingLead.body.error.code).toBe('resource_not_found');
    const dealFieldsAlone = await post(`/v1/leads/${lead.id}/convert`, { amount_cents: 5 });
    expect(dealFieldsAlone.body.error.field_errors[0].field).toBe('amount_cents');
    expect(await counts()).toEqual(before);
  });
});
