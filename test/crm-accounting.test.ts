// Accounting: the chart of accounts and balanced journal entries, drafts and posting.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
const accounts: Record<string, string> = {};

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  for (const [code, name, type] of [
    ['1000', 'Cash', 'asset'],
    ['1200', 'Receivables', 'asset'],
    ['4000', 'Sales', 'revenue'],
    ['6000', 'Rent', 'expense'],
  ]) {
    const res = await h.request('POST', '/v1/accounting/accounts', {
      token: ws.apiKey,
      body: { code, name, type },
    });
    accounts[name!] = res.body.account.id;
  }
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const entryCount = async () =>
  Number(
    (
      await h.db
        .selectFrom('journal_entries')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', ws.id)
        .executeTakeFirstOrThrow()
    ).n,
  );
const sale = (amount = 5000) => [
  { account_id: accounts.Cash, debit_cents: amount },
  { account_id: accounts.Sales, credit_cents: amount },
];

describe('accounting accounts', () => {
  it('have a unique code and one of five types, and list by type and query', async () => {
    const created = await post('/v1/accounting/accounts', {
      code: '2000',
      name: 'Payables',
      type: 'liability',
      description: 'Owed to suppliers',
    });
    expect(created.status).toBe(201);
    expect(created.body.account).toMatchObject({ code: '2000', name: 'Payables', type: 'liability' });
    expect(created.body.account.id).toMatch(/^acct_/);
    const stored = await h.db
      .selectFrom('accounting_accounts')
      .selectAll()
      .where('id', '=', created.body.account.id)
      .executeTakeFirstOrThrow();
    expect(stored).toMatchObject({ workspace_id: ws.id, code: '2000', type: 'liability' });

    const duplicate = await post('/v1/accounting/accounts', {
      code: '2000',
      name: 'Again',
      type: 'liability',
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.field_errors[0].field).toBe('code');
    const badType = await post('/v1/accounting/accounts', { code: '9', name: 'x', type: 'income' });
    expect(badType.body.error.field_errors[0]).toMatchObject({
      field: 'type',
      message: expect.stringContaining('asset'),
    });
    const missing = await post('/v1/accounting/accounts', { name: 'x' });
    expect(missing.body.error.field_errors.map((e: any) => e.field).sort()).toEqual(['code', 'type']);

    const assets = await get('/v1/accounting/accounts?type=asset');
    expect(assets.body.accounts.map((a: any) => a.code)).toEqual(['1200', '1000']);
    const query = await h.callTool(ws.mcpToken, 'list_accounting_accounts', { query: 'supplier' });
    expect(query.body.accounts.map((a: any) => a.code)).toEqual(['2000']);
    expect((await get(`/v1/accounting/accounts/${accounts.Rent}`)).body.account.name).toBe('Rent');
  });
});

describe('journal entries', () => {
  it('stores a balanced entry as draft with its lines', async () => {
    const res = await post('/v1/accounting/journal-entries', {
      entry_number: 'JE-1',
      memo: 'Cash sale',
      lines: sale(),
    });
    expect(res.status).toBe(201);
    expect(res.body.journal_entry).toMatchObject({
      status: 'draft',
      entry_number: 'JE-1',
      total_cents: 5000,
      posted_at: null,
      lines: [
        { account_id: accounts.Cash, debit_cents: 5000, credit_cents: 0 },
        { account_id: accounts.Sales, debit_cents: 0, credit_cents: 5000 },
      ],
    });
    const row = await h.db
      .selectFrom('journal_entries')
      .selectAll()
      .where('id', '=', res.body.journal_entry.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ workspace_id: ws.id, status: 'draft', total_cents: 5000 });
    expect((await get(`/v1/accounting/journal-entries/${row.id}`)).body.journal_entry).toEqual(
      res.body.journal_entry,
    );
  });

  it('stores nothing for an unbalanced entry, and names both totals', async () => {
    const before = await entryCount();
    const res = await post('/v1/accounting/journal-entries', {
      lines: [
        { account_id: accounts.Cash, debit_cents: 5000 },
        { account_id: accounts.Sales, credit_cents: 4000 },
        { account_id: accounts.Receivables, credit_cents: 500 },
      ],
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.field_errors).toEqual([
      { field: 'lines', message: expect.stringMatching(/5000.*4500/) },
    ]);
    expect(await entryCount()).toBe(before);
    const mcp = await h.callTool(ws.mcpToken, 'create_journal_entry', {
      lines: [
        { account_id: accounts.Cash, debit_cents: 1 },
        { account_id: accounts.Sales, credit_cents: 2 },
      ],
    });
    expect(mcp.body.error.field_errors[0].field).toBe('lines');
    expect(await entryCount()).toBe(before);
  });

  it('needs two lines, one side per line, existing accounts and a unique entry number', async () => {
    const before = await entryCount();
    const single = await post('/v1/accounting/journal-entries', {
      lines: [{ account_id: accounts.Cash, debit_cents: 1 }],
    });
    expect(single.body.error.field_errors[0].field).toBe('lines');
    const bothSides = await post('/v1/accounting/journal-entries', {
      lines: [
        { account_id: accounts.Cash, debit_cents: 10, credit_cents: 10 },
        { account_id: accounts.Sales, credit_cents: 0 },
      ],
    });
    expect(bothSides.body.error.field_errors.map((e: any) => e.field)).toEqual(['lines[0]', 'lines[1]']);
    const negative = await post('/v1/accounting/journal-entries', {
      lines: [
        { account_id: accounts.Cash, debit_cents: -5 },
        { account_id: accounts.Sales, credit_cents: 5 },
      ],
    });
    expect(negative.body.error.field_errors[0].field).toBe('lines[0].debit_cents');
    const unknown = await post('/v1/accounting/journal-entries', {
      lines: [
        { account_id: 'acct_missing', debit_cents: 5 },
        { account_id: accounts.Sales, credit_cents: 5 },
      ],
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('resource_not_found');
    const duplicate = await post('/v1/accounting/journal-entries', { entry_number: 'JE-1', lines: sale() });
    expect(duplicate.body.error.field_errors[0].field).toBe('entry_number');
    const status = await post('/v1/accounting/journal-entries', { status: 'void', lines: sale() });
    expect(status.body.error.field_errors[0].field).toBe('status');
    expect(await entryCount()).toBe(before);
  });

  it('lists by status and query, edits drafts, posts them, and never changes a posted entry', async () => {
    const draft = (
      await post('/v1/accounting/journal-entries', {
        entry_number: 'RENT-11',
        memo: 'November rent',
        lines: sale(100),
      })
    ).body.journal_entry;
    const posted = await post('/v1/accounting/journal-entries', {
      entry_number: 'JE-POSTED',
      status: 'posted',
      lines: sale(300),
    });
    expect(posted.body.journal_entry).toMatchObject({
      status: 'posted',
      posted_at: h.clock.now().toISOString(),
    });
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', posted.body.request_id)
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.name)).toEqual(['journal_entry.created', 'journal_entry.posted']);

    const list = async (qs: string) =>
      (await get(`/v1/accounting/journal-entries?${qs}`)).body.journal_entries.map(
        (e: any) => e.entry_number,
      );
    expect(await list('status=posted')).toEqual(['JE-POSTED']);
    expect(await list('query=rent')).toEqual(['RENT-11']);
    expect(await list('query=je-')).toEqual(['JE-POSTED', 'JE-1']);

    const edited = await patch(`/v1/accounting/journal-entries/${draft.id}`, {
      memo: 'November rent (corrected)',
      lines: [
        { account_id: accounts.Rent, debit_cents: 250 },
        { account_id: accounts.Cash, credit_cents: 250 },
      ],
    });
    expect(edited.body.journal_entry).toMatchObject({
      status: 'draft',
      total_cents: 250,
      memo: 'November rent (corrected)',
    });
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', edited.body.request_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.changed_fields)).toEqual(['memo', 'lines']);
    const unbalanced = await patch(`/v1/accounting/journal-entries/${draft.id}`, {
      lines: sale(1).map((l, i) => (i ? { ...l, credit_cents: 2 } : l)),
    });
    expect(unbalanced.body.error.field_errors[0].field).toBe('lines');

    const post2 = await h.callTool(ws.mcpToken, 'update_journal_entry', {
      journal_entry_id: draft.id,
      status: 'posted',
    });
    expect(post2.body.journal_entry).toMatchObject({
      status: 'posted',
      posted_at: h.clock.now().toISOString(),
    });
    const frozen = await h.db
      .selectFrom('journal_entries')
      .selectAll()
      .where('id', '=', draft.id)
      .executeTakeFirstOrThrow();

    for (const change of [
      { memo: 'changed' },
      { status: 'draft' },
      { lines: sale(250) },
      { custom_fields: { a: 1 } },
    ]) {
      const res = await patch(`/v1/accounting/journal-entries/${draft.id}`, change);
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(res.body.error.field_errors[0]).toMatchObject({
        field: 'journal_entry_id',
        message: expect.stringContaining('posted'),
      });
    }
    const restated = await patch(`/v1/accounting/journal-entries/${draft.id}`, { status: 'posted' });
    expect(restated.status).toBe(200);
    expect(
      await h.db
        .selectFrom('journal_entries')
        .selectAll()
        .where('id', '=', draft.id)
        .executeTakeFirstOrThrow(),
    ).toEqual(frozen);
    expect((await patch('/v1/accounting/journal-entries/jrn_missing', { memo: 'x' })).status).toBe(404);
  });
});
