export interface ContactsTable {
  workspace_id: string;
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  company_id: string | null;
  company_name: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface CompaniesTable {
  workspace_id: string;
  id: string;
  name: string;
  domain: string | null;
  website: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export type LeadStatus = 'new' | 'working' | 'qualified' | 'disqualified' | 'converted';
export type LeadSource = 'manual' | 'website' | 'referral' | 'campaign' | 'import' | 'api' | 'mcp' | 'other';

export interface LeadsTable {
  workspace_id: string;
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  company_name: string | null;
  title: string | null;
  source: LeadSource;
  score: number | null;
  status: LeadStatus;
  /** JSON object; each value is also in lead_custom_fields for filtering. */
  custom_fields: string;
  conversion_reason: string | null;
  converted_contact_id: string | null;
  converted_company_id: string | null;
  converted_deal_id: string | null;
  converted_at: string | null;
  created_at: string;
  updated_at: string;
}

/** One row per custom field of a lead: its value's string form, indexed for list_leads filters. */
export interface LeadCustomFieldsTable {
  workspace_id: string;
  lead_id: string;
  key: string;
  /** The first 100 characters of value_text, for the index. */
  value_prefix: string;
  value_text: string;
}

export type StageKind = 'open' | 'won' | 'lost';

export interface DealStagesTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  position: number;
  kind: StageKind;
  probability: number | null;
  color: string | null;
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

export interface DealsTable {
  workspace_id: string;
  id: string;
  name: string;
  stage_key: string;
  amount_cents: number;
  currency: string;
  company_id: string | null;
  contact_id: string | null;
  custom_fields: string;
  notes: string | null;
  /** Set while the deal is in a won or lost stage; null means open. */
  closed_at: string | null;
  created_at: string;
  updated_at: string;
}

export type InvoiceStatus = 'draft' | 'sent' | 'partially_paid' | 'paid' | 'void';

export interface InvoicesTable {
  workspace_id: string;
  id: string;
  invoice_number: string;
  status: InvoiceStatus;
  company_id: string | null;
  contact_id: string | null;
  deal_id: string | null;
  currency: string;
  due_date: string | null;
  /** JSON array of {kind, name, unit_amount_cents, quantity}. */
  line_items: string;
  total_cents: number;
  amount_paid_cents: number;
  custom_fields: string;
  sent_at: string | null;
  paid_at: string | null;
  voided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface PaymentsTable {
  workspace_id: string;
  id: string;
  invoice_id: string | null;
  amount_cents: number;
  currency: string;
  paid_at: string;
  provider: string | null;
  provider_reference_id: string | null;
  /** JSON [provider, provider_reference_id] when a reference is given: unique in the workspace. */
  reference_key: string | null;
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

export type AccountType = 'asset' | 'liability' | 'equity' | 'revenue' | 'expense';

export interface AccountingAccountsTable {
  workspace_id: string;
  id: string;
  code: string;
  name: string;
  type: AccountType;
  description: string | null;
  custom_fields: string;
  created_at: string;
  updated_at: string;
}

export interface JournalEntriesTable {
  workspace_id: string;
  id: string;
  entry_number: string | null;
  status: 'draft' | 'posted';
  memo: string | null;
  /** JSON array of {account_id, debit_cents, credit_cents}. */
  lines: string;
  /** Sum of the debits (equal to the sum of the credits). */
  total_cents: number;
  custom_fields: string;
  posted_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface NotesTable {
  workspace_id: string;
  id: string;
  title: string | null;
  body: string;
  contact_id: string | null;
  company_id: string | null;
  deal_id: string | null;
  custom_fields: string;
  metadata: string;
  author_type: string;
  author_credential_id: string | null;
  author_name: string;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CrmTables {
  contacts: ContactsTable;
  companies: CompaniesTable;
  leads: LeadsTable;
  lead_custom_fields: LeadCustomFieldsTable;
  deal_stages: DealStagesTable;
  deals: DealsTable;
  invoices: InvoicesTable;
  payments: PaymentsTable;
  accounting_accounts: AccountingAccountsTable;
  journal_entries: JournalEntriesTable;
  notes: NotesTable;
}
