// The CRM and ledger resources as the API returns them, declared once: record types, operation responses,
// MCP outputSchema, OpenAPI components and the domain event schemas (crm-events.ts) use these.
import { type Static, Type } from '@sinclair/typebox';
import {
  AnyJson,
  Cents,
  Currency,
  Enum,
  FieldValues,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
  timestamps,
} from '../../core/resource-schema.ts';

const customFields = FieldValues();

export const ContactSchema = Resource('Contact', {
  id: RecordId('con'),
  name: Text('Ada Lovelace'),
  email: Nullable(Type.String({ format: 'email', examples: ['ada@example.com'] })),
  phone: NullableText('+1 415 555 0100'),
  company_id: Nullable(RecordId('cmp'), { description: 'The linked company, if any.' }),
  company_name: NullableText('Northwind Traders'),
  notes: NullableText('Prefers email; decision expected next week.'),
  ...timestamps,
});
export type Contact = Static<typeof ContactSchema>;

export const CompanySchema = Resource('Company', {
  id: RecordId('cmp'),
  name: Text('Northwind Traders'),
  domain: NullableText('northwind.example'),
  website: NullableText('https://northwind.example'),
  notes: NullableText('Design agency, 40 seats.'),
  ...timestamps,
});
export type Company = Static<typeof CompanySchema>;

export const leadStatuses = ['new', 'working', 'qualified', 'disqualified', 'converted'] as const;
export const leadSources = [
  'manual',
  'website',
  'referral',
  'campaign',
  'import',
  'api',
  'mcp',
  'other',
] as const;

export const LeadSchema = Resource('Lead', {
  id: RecordId('lead'),
  name: Text('Grace Hopper'),
  email: Nullable(Type.String({ examples: ['grace@example.com'] })),
  phone: NullableText('+1 415 555 0101'),
  company_name: NullableText('Hopper Labs'),
  title: NullableText('Head of Engineering'),
  source: Enum(leadSources),
  score: Nullable(Type.Number({ examples: [72] })),
  status: Enum(leadStatuses),
  custom_fields: customFields,
  conversion_reason: NullableText('Qualified on the discovery call.'),
  converted_contact_id: Nullable(RecordId('con')),
  converted_company_id: Nullable(RecordId('cmp')),
  converted_deal_id: Nullable(RecordId('deal')),
  converted_at: NullableTimestamp(),
  ...timestamps,
});
export type Lead = Static<typeof LeadSchema>;

export const stageKinds = ['open', 'won', 'lost'] as const;

export const DealStageSchema = Resource('DealStage', {
  id: Text('dstg_negotiation', 'dstg_<key> for built-in stages, dstg_<ULID> for custom ones.'),
  key: Text('negotiation'),
  name: Text('Negotiation'),
  position: Type.Integer({ examples: [40] }),
  kind: Enum(stageKinds),
  probability: Nullable(Type.Number({ examples: [60] })),
  color: NullableText('#3366ff'),
  built_in: Type.Boolean(),
  custom_fields: customFields,
  created_at: NullableTimestamp('null for built-in stages.'),
  updated_at: NullableTimestamp('null for built-in stages.'),
});
export type DealStage = Static<typeof DealStageSchema>;

const dealProperties = {
  id: RecordId('deal'),
  name: Text('Northwind annual plan'),
  stage: Text('negotiation', 'The stage key (same as stage_key).'),
  stage_key: Text('negotiation'),
  amount_cents: Cents(),
  currency: Currency,
  company_id: Nullable(RecordId('cmp')),
  contact_id: Nullable(RecordId('con')),
  custom_fields: customFields,
  notes: NullableText('Budget approved; legal review pending.'),
  closed_at: NullableTimestamp(),
  ...timestamps,
};
export const DealSchema = Resource('Deal', dealProperties);
export type Deal = Static<typeof DealSchema>;

/** update_deal_stage's body: the deal (as it would be, on a preview) and what changed. */
export const DealChangeBodySchema = Type.Object(
  {
    deal: DealSchema,
    changes: Type.Array(
      Shape({
        field: Text('stage'),
        from: AnyJson('The value before.'),
        to: AnyJson('The value after.'),
      }),
    ),
  },
  { additionalProperties: false },
);

/** deal.stage_changed: the deal after the move and the stage key it left. */
export const DealStageChangeSchema = Resource('DealStageChange', {
  ...dealProperties,
  previous_stage: Text('qualified', 'The stage key the deal left.'),
});

export const invoiceStatuses = ['draft', 'sent', 'partially_paid', 'paid', 'void'] as const;

export const InvoiceSchema = Resource('Invoice', {
  id: RecordId('inv'),
  invoice_number: Text('INV-2026-0042'),
  status: Enum(invoiceStatuses),
  company_id: Nullable(RecordId('cmp')),
  contact_id: Nullable(RecordId('con')),
  deal_id: Nullable(RecordId('deal')),
  currency: Currency,
  due_date: Nullable(Type.String({ format: 'date-time', examples: ['2026-12-31T00:00:00.000Z'] })),
  line_items: Type.Array(
    Shape({
      kind: Text('service'),
      name: Text('Design retainer, November'),
      unit_amount_cents: Cents(),
      quantity: Type.Number({ examples: [1] }),
      amount_cents: Cents('unit_amount_cents x quantity.'),
    }),
  ),
  total_cents: Cents(),
  amount_paid_cents: Cents(),
  balance_cents: Cents('What is still owed (0 when void).'),
  custom_fields: customFields,
  sent_at: NullableTimestamp(),
  paid_at: NullableTimestamp(),
  voided_at: NullableTimestamp(),
  ...timestamps,
});
export type Invoice = Static<typeof InvoiceSchema>;

export const PaymentSchema = Resource('Payment', {
  id: RecordId('pay'),
  invoice_id: Nullable(RecordId('inv'), { description: 'null for an unapplied payment.' }),
  amount_cents: Cents(),
  currency: Currency,
  paid_at: Timestamp(),
  provider: NullableText('stripe'),
  provider_reference_id: NullableText('pi_3PqR2sT4uV5w'),
  custom_fields: customFields,
  ...timestamps,
});
export type Payment = Static<typeof PaymentSchema>;

export const accountTypes = ['asset', 'liability', 'equity', 'revenue', 'expense'] as const;

export const AccountingAccountSchema = Resource('AccountingAccount', {
  id: RecordId('acct'),
  code: Text('4000'),
  name: Text('Subscription revenue'),
  type: Enum(accountTypes),
  description: NullableText('Recurring revenue from plans.'),
  custom_fields: customFields,
  ...timestamps,
});
export type AccountingAccount = Static<typeof AccountingAccountSchema>;

export const JournalEntrySchema = Resource('JournalEntry', {
  id: RecordId('jrn'),
  entry_number: NullableText('JE-2026-0107'),
  status: Enum(['draft', 'posted'] as const),
  memo: NullableText('November subscription revenue'),
  lines: Type.Array(Shape({ account_id: RecordId('acct'), debit_cents: Cents(), credit_cents: Cents() })),
  total_cents: Cents('Sum of the debits (equal to the sum of the credits).'),
  custom_fields: customFields,
  posted_at: NullableTimestamp(),
  ...timestamps,
});
export type JournalEntry = Static<typeof JournalEntrySchema>;

export const NoteSchema = Resource('Note', {
  id: RecordId('note'),
  title: NullableText('Renewal call'),
  body: Text('Spoke with Ada; she wants the annual plan. Sending a quote on Monday.'),
  contact_id: Nullable(RecordId('con')),
  company_id: Nullable(RecordId('cmp')),
  deal_id: Nullable(RecordId('deal')),
  custom_fields: customFields,
  metadata: FieldValues('Free context for the client.'),
  author: Shape({
    type: Text('api_key', 'The kind of credential that wrote the note.'),
    credential_id: Nullable(RecordId('key')),
    name: Text('Sales assistant'),
  }),
  archived_at: NullableTimestamp(),
  ...timestamps,
});
export type Note = Static<typeof NoteSchema>;

/** convert_lead's body and lead.converted's data: the lead and the records it produced or linked. */
export const LeadConversionSchema = Type.Object(
  {
    lead: LeadSchema,
    contact: ContactSchema,
    company: Type.Optional(CompanySchema),
    deal: Type.Optional(DealSchema),
  },
  { additionalProperties: false },
);
export type LeadConversion = Static<typeof LeadConversionSchema>;
