// The CRM's tables for Kysely: each record's row type derives from its declaration (crm-records.ts,
// ledger-records.ts); lead_custom_fields, an index of the leads' custom fields, is not a record.
import type { RowOf } from '../../core/define-record.ts';
import type {
  companyRecord,
  contactRecord,
  dealRecord,
  dealStageRecord,
  leadRecord,
  noteRecord,
} from './crm-records.ts';
import type {
  accountingAccountRecord,
  invoiceRecord,
  journalEntryRecord,
  paymentRecord,
} from './ledger-records.ts';

/** One row per custom field of a lead: its value's string form, indexed for list_leads filters. */
export interface LeadCustomFieldsTable {
  workspace_id: string;
  lead_id: string;
  key: string;
  /** The first 100 characters of value_text, for the index. */
  value_prefix: string;
  value_text: string;
}

export interface CrmTables {
  contacts: RowOf<typeof contactRecord>;
  companies: RowOf<typeof companyRecord>;
  leads: RowOf<typeof leadRecord>;
  lead_custom_fields: LeadCustomFieldsTable;
  deal_stages: RowOf<typeof dealStageRecord>;
  deals: RowOf<typeof dealRecord>;
  invoices: RowOf<typeof invoiceRecord>;
  payments: RowOf<typeof paymentRecord>;
  accounting_accounts: RowOf<typeof accountingAccountRecord>;
  journal_entries: RowOf<typeof journalEntryRecord>;
  notes: RowOf<typeof noteRecord>;
}
