import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, mergedJson, requireSomeField, withoutNulls } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { InvoiceSchema } from './crm-schemas.ts';
import { currencyInput, customFieldsInput, idInput, mergedFieldsInput } from './crm-shared.ts';
import type { InvoicesTable } from './crm-tables.ts';
import {
  findInvoice,
  insertInvoice,
  invoiceNumberTaken,
  listInvoices,
  toInvoice,
  updateInvoiceRow,
} from './invoice-store.ts';

export const invoiceRecord = defineRecordType({
  type: 'invoice',
  module: 'crm',
  table: 'invoices',
  collection: '/v1/invoices',
  key: 'invoice',
  readScope: 'crm:read',
  schema: InvoiceSchema,
  toResource: toInvoice,
});

const invoiceStatus = Enum(['draft', 'sent', 'partially_paid', 'paid', 'void'] as const);

const lineItem = Strict({
  kind: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'E.g. product, service, fee.',
  }),
  name: Type.String({ minLength: 1, maxLength: 500 }),
  unit_amount_cents: Type.Integer({
    minimum: 0,
    maximum: 1_000_000_000_000,
  }),
  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
});

export const createInvoice = defineOperation({
  name: 'create_invoice',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'invoice',
  summary: 'Create an invoice',
  description:
    'Creates a draft invoice with line items; the service computes total_cents, amount_paid_cents and balance_cents. invoice_number is unique; company_id, contact_id and deal_id must exist. Send it with update_invoice (status sent); pay it with record_payment. Emits invoice.created.',
  input: Strict({
    invoice_number: Type.String({
      minLength: 1,
      maxLength: 100,
    }),
    company_id: Type.Optional(idInput()),
    contact_id: Type.Optional(idInput()),
    deal_id: Type.Optional(idInput()),
    currency: Type.Optional(currencyInput()),
    due_date: Type.Optional(Type.String({ format: 'date-time' })),
    line_items: Type.Array(lineItem, { minItems: 1, maxItems: 500 }),
    custom_fields: Type.Optional(customFieldsInput()),
  }),
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
    const row: InvoicesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('inv'),
      invoice_number: input.invoice_number,
      status: 'draft',
      company_id: input.company_id ?? null,
      contact_id: input.contact_id ?? null,
      deal_id: input.deal_id ?? null,
      currency: input.currency ?? 'USD',
      due_date: input.due_date ?? null,
      line_items: JSON.stringify(items),
      total_cents: total,
      amount_paid_cents: 0,
      custom_fields: JSON.stringify(withoutNulls(input.custom_fields)),
      sent_at: null,
      paid_at: null,
      voided_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertInvoice(ctx.db, row), 'invoice_number', duplicate);
    const invoice = toInvoice(row);
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
    status: Type.Optional(invoiceStatus),
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
    status: Type.Optional(Enum(['sent', 'void'] as const)),
    due_date: Type.Optional(Type.Union([Type.String({ format: 'date-time' }), Type.Null()])),
    custom_fields: Type.Optional(mergedFieldsInput()),
  }),
  rest: { method: 'PATCH', path: '/v1/invoices/{invoice_id}' },
  responseKey: 'invoice',
  handler: async (ctx, input) => {
    requireSomeField(input, ['status', 'due_date', 'custom_fields']);
    const row = await findInvoice(ctx.db, ctx.workspaceId, input.invoice_id);
    if (!row) throw notFound('invoice');
    const proposed = { ...input, custom_fields: mergedJson(row.custom_fields, input.custom_fields) };
    const { changes, changed } = diffFields(row, proposed, ['status', 'due_date', 'custom_fields']);
    const next: InvoicesTable = { ...row, ...changes };
    if (changes.status !== undefined) {
      if (row.status === 'void') {
        throw validationFailed([
          { field: 'status', message: 'the invoice is void; a void invoice cannot change' },
        ]);
      }
      if (row.status === 'partially_paid' || row.status === 'paid') {
        throw validationFailed([
          {
            field: 'status',
            message: `the invoice is ${row.status}; an invoice with payments cannot become ${input.status}`,
          },
        ]);
      }
      if (changes.status === 'sent') next.sent_at = ctx.now;
      else next.voided_at = ctx.now;
    }
    if (changed.length && row.status === 'void') {
      throw validationFailed([
        { field: 'invoice_id', message: 'the invoice is void; a void invoice cannot change' },
      ]);
    }
    if (changed.length) {
      next.updated_at = ctx.now;
      const { workspace_id: _w, id: _id, created_at: _c, ...set } = next;
      await updateInvoiceRow(ctx.db, ctx.workspaceId, row.id, set);
    }
    const invoice = toInvoice(next);
    ctx.audit({ targetType: 'invoice', targetId: row.id, changedFields: changed });
    if (changed.includes('status')) {
      const name = invoice.status === 'sent' ? 'invoice.sent' : 'invoice.voided';
      ctx.emit({ name, targetType: 'invoice', targetId: row.id, data: invoice });
    }
    if (changed.some((field) => field !== 'status')) {
      ctx.emit({ name: 'invoice.updated', targetType: 'invoice', targetId: row.id, data: invoice });
    }
    return { body: { invoice } };
  },
});
