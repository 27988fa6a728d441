// Every create of the CRM and ledger replays and conflicts on its idempotency key; a second workspace's key
// gets 404 on every ID of the first, reading, writing or referencing, and changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let owner: TestWorkspace;
let stranger: TestWorkspace;
const ids: Record<string, string> = {};

const as = (ws: TestWorkspace) => ({
  post: (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body }),
  patch: (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body }),
  get: (url: string) => h.request('GET', url, { token: ws.apiKey }),
  del: (url: string) => h.request('DELETE', url, { token: ws.apiKey }),
});

beforeAll(async () => {
  h = await Harness.start();
  owner = await h.workspace('Owner');
  stranger = await h.workspace('Stranger');
  const { post } = as(owner);
  ids.company = (await post('/v1/companies', { name: 'Owner Co' })).body.company.id;
  ids.contact = (await post('/v1/contacts', { name: 'Owner Person' })).body.contact.id;
  ids.lead = (await post('/v1/leads', { name: 'Owner lead' })).body.lead.id;
  ids.stage = (await post('/v1/deal-stages', { key: 'owner_stage', name: 'Owner stage' })).body.stage.id;
  ids.deal = (await post('/v1/deals', { name: 'Owner deal', amount_cents: 100 })).body.deal.id;
  ids.invoice = (
    await post('/v1/invoices', {
      invoice_number: 'O-1',
      line_items: [{ kind: 'fee', name: 'x', unit_amount_cents: 1000 }],
    })
  ).body.invoice.id;
  ids.payment = (await post('/v1/payments', { invoice_id: ids.invoice, amount_cents: 100 })).body.payment.id;
  ids.cash = (
    await post('/v1/accounting/accounts', { code: '1000', name: 'Cash', type: 'asset' })
  ).body.account.id;
  ids.sales = (
    await post('/v1/accounting/accounts', { code: '4000', name: 'Sales', type: 'revenue' })
  ).body.account.id;
  ids.entry = (
    await post('/v1/accounting/journal-entries', {
      lines: [
        { account_id: ids.cash, debit_cents: 5 },
        { account_id: ids.sales, credit_cents: 5 },
      ],
    })
  ).body.journal_entry.id;
  ids.note = (await post('/v1/notes', { body: 'Owner note', contact_id: ids.contact })).body.note.id;
});
afterAll(() => h.close());

const countAll = async (workspaceId: string) => {
  const tables = [
    'leads',
    'deal_stages',
    'deals',
    'invoices',
    'payments',
    'accounting_accounts',
    'journal_entries',
    'notes',
    'contacts',
    'companies',
  ] as const;
  const out: Record<string, number> = {};
  for (const table of tables) {
    const row = await h.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    out[table] = Number(row.n);
  }
  return out;
};

describe('idempotent creates', () => {
  const creates = [
    ['create_lead', '/v1/leads', 'lead', 'leads', { name: 'Idem lead' }, { name: 'Other lead' }],
    [
      'create_deal_stage',
      '/v1/deal-stages',
      'stage',
      'deal_stages',
      { key: 'idem', name: 'Idem' },
      { key: 'idem', name: 'Other' },
    ],
    [
      'create_deal',
      '/v1/deals',
      'deal',
      'deals',
      { name: 'Idem deal' },
      { name: 'Idem deal', amount_cents: 5 },
    ],
    [
      'create_invoice',
      '/v1/invoices',
      'invoice',
      'invoices',
      { invoice_number: 'IDEM-1', line_items: [{ kind: 'fee', name: 'x', unit_amount_cents: 10 }] },
      { invoice_number: 'IDEM-1', line_items: [{ kind: 'fee', name: 'x', unit_amount_cents: 11 }] },
    ],
    ['record_payment', '/v1/payments', 'payment', 'payments', { amount_cents: 10 }, { amount_cents: 11 }],
    [
      'create_accounting_account',
      '/v1/accounting/accounts',
      'account',
      'accounting_accounts',
      { code: 'IDEM', name: 'Idem', type: 'asset' },
      { code: 'IDEM', name: 'Idem', type: 'equity' },
    ],
    [
      'create_journal_entry',
      '/v1/accounting/journal-entries',
      'journal_entry',
      'journal_entries',
      'entry',
      'entry2',
    ],
    ['create_note', '/v1/notes', 'note', 'notes', 'note', 'note2'],
  ] as const;

  it.each(creates)(
    '%s replays the first record and conflicts on another input',
    async (tool, url, key, table, first, second) => {
      const ws = await h.workspace(`Idempotency ${tool}`);
      const { post } = as(ws);
      const contact = (await post('/v1/contacts', { name: 'Subject' })).body.contact.id;
      const a = (await post('/v1/accounting/accounts', { code: 'A', name: 'A', type: 'asset' })).body.account
        .id;
      const b = (await post('/v1/accounting/accounts', { code: 'B', name: 'B', type: 'revenue' })).body
        .account.id;
      const bodies: Record<string, unknown> = {
        entry: {
          lines: [
            { account_id: a, debit_cents: 7 },
            { account_id: b, credit_cents: 7 },
          ],
        },
        entry2: {
          lines: [
            { account_id: a, debit_cents: 8 },
            { account_id: b, credit_cents: 8 },
          ],
        },
        note: { body: 'Idem note', contact_id: contact },
        note2: { body: 'Other note', contact_id: contact },
      };
      const body = (typeof first === 'string' ? bodies[first] : first) as Record<string, unknown>;
      const other = (typeof second === 'string' ? bodies[second] : second) as Record<string, unknown>;
      const count = async () =>
        Number(
          (
            await h.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('workspace_id', '=', ws.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const before = await count();

      const created = await post(url, { ...body, idempotency_key: `key-${tool}` });
      expect(created.status).toBe(201);
      const replay = await post(url, { ...body, idempotency_key: `key-${tool}` });
      expect(replay.status).toBe(200);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body[key]).toEqual(created.body[key]);
      const mcp = await h.callTool(ws.mcpToken, tool, { ...body, idempotency_key: `key-${tool}` });
      expect(mcp.body[key].id).toBe(created.body[key].id);
      expect(await count()).toBe(before + 1);
      const audits = await h.db
        .selectFrom('audit_events')
        .selectAll()
        .where('request_id', '=', replay.body.request_id)
        .execute();
      expect(audits).toEqual([]);

      const conflict = await post(url, { ...other, idempotency_key: `key-${tool}` });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error).toMatchObject({
        code: 'idempotency_conflict',
        idempotency_key: `key-${tool}`,
      });
      expect(await count()).toBe(before + 1);
    },
  );
});

describe('a second workspace', () => {
  it('gets 404 reading every record of the first', async () => {
    const paths = {
      lead: `/v1/leads/${ids.lead}`,
      stage: `/v1/deal-stages/${ids.stage}`,
      deal: `/v1/deals/${ids.deal}`,
      invoice: `/v1/invoices/${ids.invoice}`,
      payment: `/v1/payments/${ids.payment}`,
      account: `/v1/accounting/accounts/${ids.cash}`,
      entry: `/v1/accounting/journal-entries/${ids.entry}`,
      note: `/v1/notes/${ids.note}`,
    };
    for (const [type, path] of Object.entries(paths)) {
      expect((await as(owner).get(path)).status, type).toBe(200);
      const foreign = await as(stranger).get(path);
      expect(foreign.status, type).toBe(404);
      expect(foreign.body.error.code).toBe('resource_not_found');
      expect(foreign.text).not.toContain(owner.id);
    }
  });

  it('gets 404 writing to or referencing every ID of the first, and changes nothing', async () => {
    const ownerBefore = await countAll(owner.id);
    const strangerBefore = await countAll(stranger.id);
    const ownerRows = await h.db
      .selectFrom('deals')
      .selectAll()
      .where('workspace_id', '=', owner.id)
      .execute();
    const { post, patch, del } = as(stranger);
    const line = [{ kind: 'fee', name: 'x', unit_amount_cents: 1 }];
    const attempts: [string, () => Promise<{ status: number; body: any }>][] = [
      ['convert lead', () => post(`/v1/leads/${ids.lead}/convert`, {})],
      ['update deal', () => patch(`/v1/deals/${ids.deal}`, { stage_key: 'won' })],
      ['preview deal', () => patch(`/v1/deals/${ids.deal}`, { stage_key: 'won', dry_run: true })],
      ['update invoice', () => patch(`/v1/invoices/${ids.invoice}`, { status: 'sent' })],
      ['pay invoice', () => post('/v1/payments', { invoice_id: ids.invoice, amount_cents: 1 })],
      ['update entry', () => patch(`/v1/accounting/journal-entries/${ids.entry}`, { memo: 'x' })],
      ['update note', () => patch(`/v1/notes/${ids.note}`, { body: 'x' })],
      ['archive note', () => del(`/v1/notes/${ids.note}`)],
      ['deal company', () => post('/v1/deals', { name: 'x', company_id: ids.company })],
      ['deal contact', () => post('/v1/deals', { name: 'x', contact_id: ids.contact })],
      [
        'invoice company',
        () => post('/v1/invoices', { invoice_number: 'S-1', company_id: ids.company, line_items: line }),
      ],
      [
        'invoice contact',
        () => post('/v1/invoices', { invoice_number: 'S-2', contact_id: ids.contact, line_items: line }),
      ],
      [
        'invoice deal',
        () => post('/v1/invoices', { invoice_number: 'S-3', deal_id: ids.deal, line_items: line }),
      ],
      ['note contact', () => post('/v1/notes', { body: 'x', contact_id: ids.contact })],
      ['note company', () => post('/v1/notes', { body: 'x', company_id: ids.company })],
      ['note deal', () => post('/v1/notes', { body: 'x', deal_id: ids.deal })],
      [
        'entry account',
        () =>
          post('/v1/accounting/journal-entries', {
            lines: [
              { account_id: ids.cash, debit_cents: 1 },
              { account_id: ids.sales, credit_cents: 1 },
            ],
          }),
      ],
      [
        'task on deal',
        () => post('/v1/tasks', { title: 'x', related_resource_type: 'deal', related_resource_id: ids.deal }),
      ],
      [
        'mcp update_deal_stage',
        async () =>
          (await h.callTool(stranger.mcpToken, 'update_deal_stage', { deal_id: ids.deal, stage: 'won' }))
            .http,
      ],
    ];
    for (const [name, attempt] of attempts) {
      const res = await attempt();
      const error = res.body.error ?? res.body.result?.structuredContent?.error;
      expect(error?.code, name).toBe('resource_not_found');
    }
    const strangerLead = (await post('/v1/leads', { name: 'Stranger lead' })).body.lead.id;
    for (const field of ['contact_id', 'company_id']) {
      const res = await post(`/v1/leads/${strangerLead}/convert`, { [field]: ids[field.replace('_id', '')] });
      expect(res.status, field).toBe(404);
    }
    const ownerStage = await post('/v1/deals', { name: 'x', stage_key: 'owner_stage' });
    expect(ownerStage.body.error.field_errors[0].field).toBe('stage_key');
    const restore = await h.admin('POST', `/workspaces/${stranger.id}/notes/${ids.note}/restore`);
    expect(restore.status).toBe(404);

    expect(await countAll(owner.id)).toEqual(ownerBefore);
    expect(await countAll(stranger.id)).toEqual({ ...strangerBefore, leads: strangerBefore.leads! + 1 });
    expect(await h.db.selectFrom('deals').selectAll().where('workspace_id', '=', owner.id).execute()).toEqual(
      ownerRows,
    );
  });

  it("sees none of the first workspace's records in lists or the summary", async () => {
    for (const url of [
      '/v1/leads',
      '/v1/invoices',
      '/v1/accounting/accounts',
      '/v1/accounting/journal-entries',
      '/v1/notes',
    ]) {
      const res = await as(stranger).get(url);
      const key = Object.keys(res.body).find((k) => k !== 'request_id')!;
      const foreign = res.body[key].filter((r: any) => r.name !== 'Stranger lead');
      expect(foreign, url).toEqual([]);
    }
    const stages = await as(stranger).get('/v1/deal-stages');
    expect(stages.body.stages.every((s: any) => s.built_in)).toBe(true);
    const summary = await as(stranger).get('/v1/workspace');
    expect(summary.body.workspace.summary.crm.open_deals).toEqual({ count: 0, amount_cents_by_currency: {} });
  });
});
