// The domain events of the CRM and ledger resources. Their data schemas are the schemas of the records the
// API returns (crm-records.ts, ledger-records.ts), so an event and a read of the same record never disagree.
import type { DomainEventType } from '../../core/module.ts';
import {
  companyRecord,
  contactRecord,
  dealRecord,
  dealStageRecord,
  leadRecord,
  noteRecord,
} from './crm-records.ts';
import { DealStageChangeSchema, LeadConversionSchema } from './crm-schemas.ts';
import {
  accountingAccountRecord,
  invoiceRecord,
  journalEntryRecord,
  paymentRecord,
} from './ledger-records.ts';

const account = accountingAccountRecord.schema;
const company = companyRecord.schema;
const contact = contactRecord.schema;
const deal = dealRecord.schema;
const invoice = invoiceRecord.schema;
const journalEntry = journalEntryRecord.schema;
const lead = leadRecord.schema;
const note = noteRecord.schema;
const payment = paymentRecord.schema;
const stage = dealStageRecord.schema;

export const crmEvents: DomainEventType[] = [
  { name: 'contact.created', description: 'A contact was created; data is the contact.', schema: contact },
  { name: 'company.created', description: 'A company was created; data is the company.', schema: company },
  { name: 'lead.created', description: 'A lead was created (status new); data is the lead.', schema: lead },
  {
    name: 'lead.converted',
    description:
      'A lead was converted; data holds the converted lead and the contact, company and deal it produced or ' +
      'linked (company and deal only when present). Records it created also emit their own *.created event.',
    schema: LeadConversionSchema,
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
    schema: DealStageChangeSchema,
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
