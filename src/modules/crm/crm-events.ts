// The domain events of the CRM and ledger resources, with JSON Schemas of their data for subscribers.
import { type TProperties, Type } from '@sinclair/typebox';
import type { DomainEventType } from '../../core/module.ts';

const text = Type.String();
const nullableText = Type.Union([Type.String(), Type.Null()]);
const cents = Type.Integer({ minimum: 0 });
const fields = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean()]));

/** A record as the API returns it: the listed fields, and possibly more. */
const record = (description: string, properties: TProperties) =>
  Type.Object(
    { id: text, ...properties, created_at: nullableText, updated_at: nullableText },
    { description },
  );

const lead = record('The lead.', {
  name: text,
  email: nullableText,
  status: text,
  source: text,
  custom_fields: fields,
  converted_contact_id: nullableText,
  converted_company_id: nullableText,
  converted_deal_id: nullableText,
});
const contact = record('The contact.', { name: text, email: nullableText, company_id: nullableText });
const company = record('The company.', { name: text, domain: nullableText });
const dealProperties = {
  name: text,
  stage: text,
  stage_key: text,
  amount_cents: cents,
  currency: text,
  company_id: nullableText,
  contact_id: nullableText,
  custom_fields: fields,
  closed_at: nullableText,
};
const deal = record('The deal.', dealProperties);
const stage = record('The custom deal stage.', {
  key: text,
  name: text,
  position: Type.Integer(),
  kind: text,
});
const invoice = record('The invoice.', {
  invoice_number: text,
  status: text,
  currency: text,
  total_cents: cents,
  amount_paid_cents: cents,
  balance_cents: cents,
});
const payment = record('The payment.', {
  invoice_id: nullableText,
  amount_cents: cents,
  currency: text,
  paid_at: text,
  provider: nullableText,
  provider_reference_id: nullableText,
});
const account = record('The accounting account.', { code: text, name: text, type: text });
const journalEntry = record('The journal entry.', {
  entry_number: nullableText,
  status: text,
  memo: nullableText,
  lines: Type.Array(Type.Object({ account_id: text, debit_cents: cents, credit_cents: cents })),
  total_cents: cents,
});
const note = record('The note.', {
  title: nullableText,
  body: text,
  contact_id: nullableText,
  company_id: nullableText,
  deal_id: nullableText,
  archived_at: nullableText,
});

export const crmEvents: DomainEventType[] = [
  { name: 'contact.created', description: 'A contact was created; data is the contact.', schema: contact },
  { name: 'company.created', description: 'A company was created; data is the company.', schema: company },
  { name: 'lead.created', description: 'A lead was created (status new); data is the lead.', schema: lead },
  {
    name: 'lead.converted',
    description:
      'A lead was converted; data holds the converted lead and the contact, company and deal it produced or ' +
      'linked (company and deal only when present). Records it created also emit their own *.created event.',
    schema: Type.Object({ lead, contact, company: Type.Optional(company), deal: Type.Optional(deal) }),
  },
  {
    name: 'deal_stage.created',
    description: 'A custom deal stage was created; data is the stage.',
    schema: stage,
  },
  { name: 'deal.created', description: 'A deal was created; data is the deal.', schema: deal },
  {
    name: 'deal.stage_changed',
    description: 'A deal moved to another stage; data is the deal plus previous_stage (the key it left).',
    schema: record('The deal after the move, with the stage it left.', {
      ...dealProperties,
      previous_stage: text,
    }),
  },
  {
    name: 'deal.updated',
    description: "A deal's amount, currency, custom_fields or notes changed; data is the deal.",
    schema: deal,
  },
  {
    name: 'invoice.created',
    description: 'A draft invoice was created; data is the invoice.',
    schema: invoice,
  },
  { name: 'invoice.sent', description: 'An invoice was marked sent; data is the invoice.', schema: invoice },
  { name: 'invoice.voided', description: 'An invoice was voided; data is the invoice.', schema: invoice },
  {
    name: 'invoice.updated',
    description: "An invoice's due_date or custom_fields changed; data is the invoice.",
    schema: invoice,
  },
  {
    name: 'invoice.paid',
    description: "A payment brought an invoice's balance to 0 (status paid); data is the invoice.",
    schema: invoice,
  },
  {
    name: 'payment.recorded',
    description: 'A payment was recorded, applied to an invoice or unapplied; data is the payment.',
    schema: payment,
  },
  {
    name: 'accounting_account.created',
    description: 'An account was added to the chart of accounts; data is the account.',
    schema: account,
  },
  {
    name: 'journal_entry.created',
    description: 'A journal entry was created; data is the entry.',
    schema: journalEntry,
  },
  {
    name: 'journal_entry.updated',
    description: "A draft journal entry's number, memo, lines or custom_fields changed; data is the entry.",
    schema: journalEntry,
  },
  {
    name: 'journal_entry.posted',
    description: 'A journal entry was posted (at creation or later) and is now final; data is the entry.',
    schema: journalEntry,
  },
  { name: 'note.created', description: 'A note was added; data is the note.', schema: note },
  { name: 'note.updated', description: 'A note was edited; data is the note.', schema: note },
  {
    name: 'note.archived',
    description: 'A note was archived (hidden from reads, kept with its history); data is the note.',
    schema: note,
  },
];
