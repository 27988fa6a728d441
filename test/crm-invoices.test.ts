// Invoices and payments: computed totals, status through partial and full payment, and the payment rules.
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
const invoiceRow = (id: string) =>
  h.db.selectFrom('invoices').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const paymentCount = async () =>
  Number(
    (
      await h.db
        .selectFrom('payments')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', ws.id)
        .executeTakeFirstOrThrow()
    ).n,
  );
const eventNames = async (requestId: string) =>
  (
    await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', requestId)
      .orderBy('id')
      .execute()
  ).map((e) => e.name);

let number = 0;
const newInvoice = async (body: Record<string, unknown> = {}) => {
  number += 1;
  const res = await post('/v1/invoices', {
    invoice_number: `INV-${number}`,
    line_items: [
      { kind: 'service', name: 'Consulting', unit_amount_cents: 10_000, quantity: 3 },
      { kind: 'fee', name: 'Setup', unit_amount_cents: 5_000 },
    ],
    ...body,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.invoice;
};

describe('invoices', () => {
  it('start as draft with totals computed by the service, and quantity defaulting to 1', async () => {
    const company = (await post('/v1/companies', { name: 'Billing Co' })).body.company;
    const deal = (await post('/v1/deals', { name: 'Billing deal', company_id: company.id })).body.deal;
    const invoice = await newInvoice({
      company_id: company.id,
      deal_id: deal.id,
      due_date: '2026-12-31T00:00:00Z',
    });
    expect(invoice).toMatchObject({
      status: 'draft',
      currency: 'USD',
      company_id: company.id,
      deal_id: deal.id,
      total_cents: 35_000,
      amount_paid_cents: 0,
      balance_cents: 35_000,
      line_items: [
        { kind: 'service', name: 'Consulting', unit_amount_cents: 10_000, quantity: 3, amount_cents: 30_000 },
        { kind: 'fee', name: 'Setup', unit_amount_cents: 5_000, quantity: 1, amount_cents: 5_000 },
      ],
    });
    expect(await invoiceRow(invoice.id)).toMatchObject({
      workspace_id: ws.id,
      total_cents: 35_000,
      amount_paid_cents: 0,
      status: 'draft',
    });
    expect((await get(`/v1/invoices/${invoice.id}`)).body.invoice).toEqual(invoice);
  });

  it('rejects a duplicate number, empty or malformed line items and unknown references, storing nothing', async () => {
    const existing = await newInvoice();
    const before = await h.db.selectFrom('invoices').select('id').where('workspace_id', '=', ws.id).execute();
    const duplicate = await post('/v1/invoices', {
      invoice_number: existing.invoice_number,
      line_items: [{ kind: 'fee', name: 'x', unit_amount_cents: 1 }],
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.field_errors[0].field).toBe('invoice_number');
    const empty = await post('/v1/invoices', { invoice_number: 'E-1', line_items: [] });
    expect(empty.body.error.field_errors[0].field).toBe('line_items');
    const bad = await post('/v1/invoices', {
      invoice_number: 'E-2',
      line_items: [{ kind: 'fee', name: 'x', unit_amount_cents: -1, quantity: 0, color: 'red' }],
    });
    expect(bad.body.error.field_errors.map((e: any) => e.field).sort()).toEqual([
      'line_items[0].color',
      'line_items[0].quantity',
      'line_items[0].unit_amount_cents',
    ]);
    const missingName = await post('/v1/invoices', {
      invoice_number: 'E-3',
      line_items: [{ kind: 'fee', unit_amount_cents: 1 }],
    });
    expect(missingName.body.error.field_errors[0].field).toBe('line_items[0].name');
    for (const ref of ['company_id', 'contact_id', 'deal_id']) {
      const res = await post('/v1/invoices', {
        invoice_number: `R-${ref}`,
        [ref]: 'x_missing',
        line_items: [{ kind: 'fee', name: 'x', unit_amount_cents: 1 }],
      });
      expect(res.status, ref).toBe(404);
    }
    const after = await h.db.selectFrom('invoices').select('id').where('workspace_id', '=', ws.id).execute();
    expect(after.length).toBe(before.length);
  });

  it('list_invoices filters by status, company, contact and deal', async () => {
    const other = await h.workspace('Invoice lists');
    const call = (url: string, body: unknown) => h.request('POST', url, { token: other.apiKey, body });
    const contact = (await call('/v1/contacts', { name: 'Payer' })).body.contact;
    const line = [{ kind: 'fee', name: 'x', unit_amount_cents: 100 }];
    const a = (await call('/v1/invoices', { invoice_number: 'A', contact_id: contact.id, line_items: line }))
      .body.invoice;
    const b = (await call('/v1/invoices', { invoice_number: 'B', line_items: line })).body.invoice;
    await h.request('PATCH', `/v1/invoices/${b.id}`, { token: other.apiKey, body: { status: 'sent' } });
    const list = async (qs: string) =>
      (await h.request('GET', `/v1/invoices?${qs}`, { token: other.apiKey })).body.invoices.map(
        (i: any) => i.invoice_number,
      );
    expect(await list('')).toEqual(['B', 'A']);
    expect(await list('status=sent')).toEqual(['B']);
    expect(await list(`contact_id=${contact.id}`)).toEqual(['A']);
    expect(await list('deal_id=deal_none')).toEqual([]);
    const mcp = await h.callTool(other.mcpToken, 'list_invoices', { status: 'draft' });
    expect(mcp.body.invoices.map((i: any) => i.id)).toEqual([a.id]);
  });

  it('update_invoice sends and voids, refuses to reopen, and a void invoice takes no payments', async () => {
    const invoice = await newInvoice();
    const sent = await patch(`/v1/invoices/${invoice.id}`, { status: 'sent', custom_fields: { po: 'PO-9' } });
    expect(sent.body.invoice).toMatchObject({
      status: 'sent',
      sent_at: h.clock.now().toISOString(),
      custom_fields: { po: 'PO-9' },
    });
    expect(await eventNames(sent.body.request_id)).toEqual(['invoice.sent', 'invoice.updated']);
    const again = await patch(`/v1/invoices/${invoice.id}`, { status: 'sent' });
    expect(again.status).toBe(200);
    expect(await eventNames(again.body.request_id)).toEqual([]);
    const voided = await h.callTool(ws.mcpToken, 'update_invoice', {
      invoice_id: invoice.id,
      status: 'void',
    });
    expect(voided.body.invoice).toMatchObject({ status: 'void', balance_cents: 0 });
    expect((await invoiceRow(invoice.id)).status).toBe('void');

    const reopen = await patch(`/v1/invoices/${invoice.id}`, { status: 'sent' });
    expect(reopen.body.error.field_errors[0].field).toBe('status');
    const due = await patch(`/v1/invoices/${invoice.id}`, { due_date: '2027-01-01T00:00:00Z' });
    expect(due.status).toBe(400);
    const before = await paymentCount();
    const payment = await post('/v1/payments', { invoice_id: invoice.id, amount_cents: 100 });
    expect(payment.status).toBe(400);
    expect(payment.body.error.field_errors[0].field).toBe('invoice_id');
    expect(await paymentCount()).toBe(before);
    expect((await patch('/v1/invoices/inv_missing', { status: 'sent' })).status).toBe(404);
    expect((await patch(`/v1/invoices/${invoice.id}`, {})).status).toBe(400);

    const tools = (await h.mcp(ws.mcpToken, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result
      .tools;
    expect(tools.find((t: any) => t.name === 'update_invoice')._meta).toMatchObject({
      extension: true,
      scopes: ['crm:write'],
    });
  });
});

describe('record_payment', () => {
  it('moves the invoice through partially_paid to paid in the same transaction', async () => {
    const invoice = await newInvoice();
    const first = await post('/v1/payments', {
      invoice_id: invoice.id,
      amount_cents: 20_000,
      provider: 'stripe',
      provider_reference_id: 'ch_1',
      paid_at: '2026-11-20T10:00:00Z',
    });
    expect(first.status).toBe(201);
    expect(first.body.payment).toMatchObject({
      invoice_id: invoice.id,
      amount_cents: 20_000,
      currency: 'USD',
      provider: 'stripe',
    });
    expect(await invoiceRow(invoice.id)).toMatchObject({
      status: 'partially_paid',
      amount_paid_cents: 20_000,
      paid_at: null,
    });
    expect((await get(`/v1/invoices/${invoice.id}`)).body.invoice).toMatchObject({
      balance_cents: 15_000,
      amount_paid_cents: 20_000,
    });
    expect(await eventNames(first.body.request_id)).toEqual(['payment.recorded']);
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', first.body.request_id)
      .orderBy('id')
      .execute();
    expect(audits.map((a) => [a.target_type, a.action])).toEqual([
      ['payment', 'create'],
      ['invoice', 'update'],
    ]);

    const second = await h.callTool(ws.mcpToken, 'record_payment', {
      invoice_id: invoice.id,
      amount_cents: 15_000,
      currency: 'USD',
    });
    expect(second.result.isError).toBeUndefined();
    const paid = await invoiceRow(invoice.id);
    expect(paid).toMatchObject({
      status: 'paid',
      amount_paid_cents: 35_000,
      paid_at: h.clock.now().toISOString(),
    });
    expect(await eventNames(second.body.request_id)).toEqual(['payment.recorded', 'invoice.paid']);
    expect((await get(`/v1/invoices/${invoice.id}`)).body.invoice.balance_cents).toBe(0);

    const more = await post('/v1/payments', { invoice_id: invoice.id, amount_cents: 1 });
    expect(more.body.error.field_errors[0].field).toBe('amount_cents');
    const voidPaid = await patch(`/v1/invoices/${invoice.id}`, { status: 'void' });
    expect(voidPaid.body.error.field_errors[0].field).toBe('status');
  });

  it('rejects a currency mismatch and an overpayment, changing nothing', async () => {
    const invoice = await newInvoice({ currency: 'EUR' });
    const before = await paymentCount();
    const mismatch = await post('/v1/payments', {
      invoice_id: invoice.id,
      amount_cents: 100,
      currency: 'USD',
    });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.field_errors).toEqual([
      { field: 'currency', message: expect.stringContaining('EUR') },
    ]);
    const over = await post('/v1/payments', { invoice_id: invoice.id, amount_cents: 35_001 });
    expect(over.status).toBe(400);
    expect(over.body.error.field_errors).toEqual([
      { field: 'amount_cents', message: expect.stringContaining('35000') },
    ]);
    const zero = await post('/v1/payments', { invoice_id: invoice.id, amount_cents: 0 });
    expect(zero.body.error.field_errors[0].field).toBe('amount_cents');
    expect(await paymentCount()).toBe(before);
    expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'draft', amount_paid_cents: 0 });
    const exact = await post('/v1/payments', { invoice_id: invoice.id, amount_cents: 35_000 });
    expect(exact.body.payment.currency).toBe('EUR');
    expect((await invoiceRow(invoice.id)).status).toBe('paid');
    const missing = await post('/v1/payments', { invoice_id: 'inv_missing', amount_cents: 5 });
    expect(missing.status).toBe(404);
  });

  it('refuses a provider reference recorded before, and records unapplied payments', async () => {
    const unapplied = await post('/v1/payments', {
      amount_cents: 999,
      provider: 'stripe',
      provider_reference_id: 'ch_dup',
    });
    expect(unapplied.body.payment).toMatchObject({ invoice_id: null, currency: 'USD', amount_cents: 999 });
    const before = await paymentCount();
    const invoice = await newInvoice();
    const duplicate = await post('/v1/payments', {
      invoice_id: invoice.id,
      amount_cents: 5,
      provider: 'stripe',
      provider_reference_id: 'ch_dup',
    });
    expect(duplicate.status).toBe(400);
    expect(duplicate.body.error.field_errors[0].field).toBe('provider_reference_id');
    expect(await paymentCount()).toBe(before);
    expect(await invoiceRow(invoice.id)).toMatchObject({ status: 'draft', amount_paid_cents: 0 });
    const noProvider = await post('/v1/payments', { amount_cents: 5, provider_reference_id: 'ref-1' });
    expect(noProvider.status).toBe(201);
    const noProviderAgain = await post('/v1/payments', { amount_cents: 5, provider_reference_id: 'ref-1' });
    expect(noProviderAgain.body.error.field_errors[0].field).toBe('provider_reference_id');
    const otherProvider = await post('/v1/payments', {
      amount_cents: 5,
      provider: 'paypal',
      provider_reference_id: 'ch_dup',
    });
    expect(otherProvider.status).toBe(201);
    const lookup = await get(`/v1/payments/${unapplied.body.payment.id}`);
    expect(lookup.body.payment).toEqual(unapplied.body.payment);
  });

  it('never takes an invoice past its total or records one reference twice under concurrent calls', async () => {
    const invoice = await newInvoice();
    const results = await Promise.all(
      [1, 2, 3].map((i) =>
        post('/v1/payments', {
          invoice_id: invoice.id,
          amount_cents: 20_000,
          provider_reference_id: `race-${i}`,
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400]);
    expect(await invoiceRow(invoice.id)).toMatchObject({
      amount_paid_cents: 20_000,
      status: 'partially_paid',
    });

    const before = await paymentCount();
    const same = await Promise.all(
      [1, 2].map(() =>
        post('/v1/payments', { amount_cents: 5, provider: 'bank', provider_reference_id: 'same-ref' }),
      ),
    );
    expect(same.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(same.find((r) => r.status === 400)!.body.error.field_errors[0].field).toBe(
      'provider_reference_id',
    );
    expect(await paymentCount()).toBe(before + 1);
  });
});
