// The ledger's records (invoices, payments, accounts, journal entries), each declared once as crm-records.ts
// declares the CRM's.
import { Type } from '@sinclair/typebox';
import { defineRecord, type RecordOf, type RowOf } from '../../core/define-record.ts';
import {
  computed,
  currency,
  json,
  MAX_CENTS,
  money,
  oneOf,
  ref,
  text,
  timestamp,
} from '../../core/record-fields.ts';
import { Cents, RecordId, Shape, Text } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { customFields, mergedCustomFields } from './crm-records.ts';

export const invoiceStatuses = ['draft', 'sent', 'partially_paid', 'paid', 'void'] as const;

/** A line item as stored; the record adds its amount_cents. */
export interface LineItem {
  kind: string;
  name: string;
  unit_amount_cents: number;
  quantity: number;
}

const lineItemInput = Strict({
  kind: Type.String({ minLength: 1, maxLength: 64, description: 'E.g. product, service, fee.' }),
  name: Type.String({ minLength: 1, maxLength: 500 }),
  unit_amount_cents: Type.Integer({ minimum: 0, maximum: 1_000_000_000_000 }),
  quantity: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 })),
});

const lineItems = Type.Array(
  Shape({
    kind: Text('service'),
    name: Text('Design retainer, November'),
    unit_amount_cents: Cents(),
    quantity: Type.Number({ examples: [1] }),
    amount_cents: Cents('unit_amount_cents x quantity.'),
  }),
);

export const invoiceRecord = defineRecord({
  type: 'invoice',
  module: 'crm',
  table: 'invoices',
  prefix: 'inv',
  title: 'Invoice',
  collection: '/v1/invoices',
  key: 'invoice',
  readScope: 'crm:read',
  fields: {
    invoice_number: text({ example: 'INV-2026-0042', min: 1, max: 100 }).input(),
    status: oneOf(invoiceStatuses).editable(),
    company_id: ref('company', 'cmp').nullable().input(),
    contact_id: ref('contact', 'con').nullable().input(),
    deal_id: ref('deal', 'deal').nullable().input(),
    currency: currency().default('USD').input({ description: 'Default USD.' }),
    due_date: timestamp({ example: '2026-12-31T00:00:00.000Z' }).nullable().input().editable(),
    line_items: json(lineItems, (items: LineItem[]) =>
      items.map((item) => ({ ...item, amount_cents: item.unit_amount_cents * item.quantity })),
    ).input({ schema: Type.Array(lineItemInput, { minItems: 1, maxItems: 500 }) }),
    total_cents: money(),
    amount_paid_cents: money(),
    balance_cents: computed(Cents('What is still owed (0 when void).')),
    custom_fields: mergedCustomFields(),
    sent_at: timestamp().nullable(),
    paid_at: timestamp().nullable(),
    voided_at: timestamp().nullable(),
  },
  compute: {
    balance_cents: (row) =>
      row.status === 'void' ? 0 : Number(row.total_cents) - Number(row.amount_paid_cents),
  },
});
export type Invoice = RecordOf<typeof invoiceRecord>;
export type InvoiceRow = RowOf<typeof invoiceRecord>;
export type InvoiceStatus = (typeof invoiceStatuses)[number];

export const paymentRecord = defineRecord({
  type: 'payment',
  module: 'crm',
  table: 'payments',
  prefix: 'pay',
  title: 'Payment',
  collection: '/v1/payments',
  key: 'payment',
  readScope: 'crm:read',
  fields: {
    invoice_id: ref('invoice', 'inv', 'null for an unapplied payment.').nullable().input(),
    amount_cents: money({ min: 1 }).input(),
    currency: currency().input({ optional: true, description: "Default the invoice's, else USD." }),
    paid_at: timestamp().input({ optional: true, description: 'Default now.' }),
    provider: text({ example: 'stripe', min: 1, max: 100 })
      .nullable()
      .input({ description: 'E.g. stripe, bank_transfer.' }),
    provider_reference_id: text({ example: 'pi_3PqR2sT4uV5w', min: 1, max: 255 })
      .nullable()
      .input({ description: "The processor's charge ID; unique per provider." }),
    /** JSON [provider, provider_reference_id] when a reference is given: unique in the workspace. */
    reference_key: text().nullable().hidden(),
    custom_fields: customFields(),
  },
});
export type Payment = RecordOf<typeof paymentRecord>;

export const accountTypes = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;

export const accountingAccountRecord = defineRecord({
  type: 'accounting_account',
  module: 'crm',
  table: 'accounting_accounts',
  prefix: 'acct',
  title: 'AccountingAccount',
  collection: '/v1/accounting/accounts',
  key: 'account',
  readScope: 'crm:read',
  fields: {
    code: text({ example: '4000', min: 1, max: 50 }).search().input(),
    name: text({ example: 'Subscription revenue', min: 1, max: 200 }).search().input(),
    type: oneOf(accountTypes).input(),
    description: text({ example: 'Recurring revenue from plans.', max: 2000 }).nullable().search().input(),
    custom_fields: customFields(),
  },
});
export type AccountingAccount = RecordOf<typeof accountingAccountRecord>;

export const entryStatuses = ['draft', 'posted'] as const;

/** A journal line as stored: one side above 0. */
export interface JournalLine {
  account_id: string;
  debit_cents: number;
  credit_cents: number;
}

const lineInput = Strict({
  account_id: Type.String({ minLength: 1, maxLength: 255 }),
  debit_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
  credit_cents: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_CENTS })),
});

export const journalEntryRecord = defineRecord({
  type: 'journal_entry',
  module: 'crm',
  table: 'journal_entries',
  prefix: 'jrn',
  title: 'JournalEntry',
  collection: '/v1/accounting/journal-entries',
  key: 'journal_entry',
  readScope: 'crm:read',
  fields: {
    entry_number: text({ example: 'JE-2026-0107', min: 1, max: 100 })
      .nullable()
      .search()
      .input()
      .editable('replace', { nullable: false }),
    status: oneOf(entryStatuses).default('draft').input().editable(),
    memo: text({ example: 'November subscription revenue', max: 2000 })
      .nullable()
      .search()
      .input()
      .editable('replace', { nullable: false }),
    lines: json(
      Type.Array(Shape({ account_id: RecordId('acct'), debit_cents: Cents(), credit_cents: Cents() })),
    )
      .input({
        schema: Type.Array(lineInput, {
          minItems: 2,
          maxItems: 500,
          description: 'Each line has one of debit_cents, credit_cents above 0; debits must equal credits.',
        }),
      })
      .editable(),
    /** Sum of the debits (equal to the sum of the credits). */
    total_cents: money({ description: 'Sum of the debits (equal to the sum of the credits).' }),
    custom_fields: mergedCustomFields(),
    posted_at: timestamp().nullable(),
  },
});
export type JournalEntry = RecordOf<typeof journalEntryRecord>;
export type JournalEntryRow = RowOf<typeof journalEntryRecord>;
