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

export interface CrmTables {
  contacts: ContactsTable;
  companies: CompaniesTable;
}
