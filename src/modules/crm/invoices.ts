import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { updateRecord } from '../../core/record-update.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { idInput } from './crm-shared.ts';
import { invoiceNumberTaken, listInvoices } from './invoice-store.ts';
import { invoiceRecord, invoiceStatuses } from './ledger-records.ts';

export const createInvoice = defineOperation({
  name: 'create_invoice',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'invoice',
  summary: 'Create an invoice',
  description:
    'Creates a draft invoice with line items; the service computes total_cents, amount_paid_cents and balance_cents. invoice_number is unique; company_id, contact_id and deal_id must exist. Send it with update_invoice (status sent); pay it with record_payment. Emits invoice.created.',
  input: Strict(invoiceRecord.createInput),
  rest: { method: 'POST', path: '/v1/invoices' },
  responseKey: 'invoice',
  handler: async (ctx, input) => {
    const duplicate = `invoice number "${input.invoice_number}" is already used in this workspace`;
    if (await invoiceNumberTaken(ctx.db, ctx.workspaceId, input.invoice_number)) {
      throw validationFailed([{ field: 'invoice_number', message: duplicate }]);
    }
    if (input.company_id) await ctx.requireRecord('company', input.company_id);
    if (input.contact_id) await ctx.requireRecord('contact', input.contact_id);
    if (input.deal_id) await ctx.requireRecord('deal', input.deal_id);
    const items = input.line_items.map((item) => ({ ...item, quantity: item.quantity ?? 1 }));
    const total = items.reduce((sum, item) => sum + item.unit_amount_cents * item.quantity, 0);
    if (!Number.isSafeInteger(total) || total > 1_000_000_000_000_000) {
      throw validationFailed([{ field: 'line_items', message: 'the invoice total is too large' }]);
    }
    const row = invoiceRecord.row(ctx, {
      ...input,
      status: 'draft',
      line_items: items,
      total_cents: total,
      amount_paid_cents: 0,
    });
    const invoice = await uniquely(() => invoiceRecord.insert(ctx.db, row), 'invoice_number', duplicate);
    ctx.audit({ targetType: 'invoice', targetId: invoice.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'invoice.created', targetType: 'invoice', targetId: invoice.id, data: invoice });
    return { body: { invoice }, createdId: invoice.id };
  },
});

export const listInvoicesOperation = defineOperation({
  name: 'list_invoices',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'List invoices',
  description: 'Lists invoices, newest first, each with total_cents, amount_paid_cents and balance_cents.',
  input: Strict({
    status: Type.Optional(Enum(invoiceStatuses)),
    company_id: Type.Optional(idInput()),
    contact_id: Type.Optional(idInput()),
    deal_id: Type.Optional(idInput()),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/invoices' },
  responseKey: 'invoices',
  heavy: heavyFilters({ indexed: ['status', 'company_id', 'contact_id', 'deal_id'] }),
  handler: async (ctx, input) => {
    const page = await listInvoices(ctx.db, ctx.workspaceId, input, pageRequest('list_invoices', input));
    return { body: listBody('invoices', page) };
  },
});

export const updateInvoice = defineOperation({
  name: 'update_invoice',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'update',
  extension: true,
  summary: 'Send or void an invoice, or change its due date',
  description:
    'Marks a draft invoice sent, voids a draft or sent invoice without payments (void is final: no payments, no changes), changes due_date or merges custom_fields. Paid states come only from record_payment. Emits invoice.sent, invoice.voided or invoice.updated.',
  input: Strict({
    invoice_id: idInput(),
    ...invoiceRecord.patchInput,
    // Paid states come only from record_payment.
    status: Type.Optional(Enum(['sent', 'void'] as const)),
  }),
  rest: { method: 'PATCH', path: '/v1/invoices/{invoice_id}' },
  responseKey: 'invoice',
  handler: async (ctx, input) => {
    const { record: invoice, changed } = await updateRecord(ctx, invoiceRecord, input.invoice_id, input, {
      apply: ({ row, next, changed }) => {
        if (changed.includes('status')) {
          if (row.status === 'partially_paid' || row.status === 'paid') {
            throw validationFailed([
              {
                field: 'status',
                message: `the invoice is ${row.status}; an invoice with payments cannot become ${input.status}`,
              },
            ]);
          }
          if (next.status === 'sent') next.sent_at = ctx.now;
          else next.voided_at = ctx.now;
        }
        if (changed.length && row.status === 'void') {
          const field = changed.includes('status') ? 'status' : 'invoice_id';
          throw validationFailed([{ field, message: 'the invoice is void; a void invoice cannot change' }]);
        }
      },
    });
    if (changed.includes('status')) {
      const name = invoice.status === 'sent' ? 'invoice.sent' : 'invoice.voided';
      ctx.emit({ name, targetType: 'invoice', targetId: invoice.id, data: invoice });
    }
    if (changed.some((field) => field !== 'status')) {
      ctx.emit({ name: 'invoice.updated', targetType: 'invoice', targetId: invoice.id, data: invoice });
    }
    return { body: { invoice } };
  },
});
