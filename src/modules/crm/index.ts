import type { ModuleDefinition } from '../../core/module.ts';
import { createAccountingAccount, listAccountingAccounts } from './accounting-accounts.ts';
import { createCompany, searchCompaniesOperation } from './companies.ts';
import { createContact, searchContactsOperation } from './contacts.ts';
import { crmEvents } from './crm-events.ts';
import {
  companyRecord,
  contactRecord,
  dealRecord,
  dealStageRecord,
  leadRecord,
  noteRecord,
} from './crm-records.ts';
import { crmCounts } from './crm-summary-store.ts';
import type { CrmTables } from './crm-tables.ts';
import { createDealStage, listDealStages } from './deal-stages.ts';
import { createDeal, updateDeal, updateDealStage } from './deals.ts';
import { createInvoice, listInvoicesOperation, updateInvoice } from './invoices.ts';
import { createJournalEntry, listJournalEntriesOperation, updateJournalEntry } from './journal-entries.ts';
import { convertLead } from './lead-conversion.ts';
import { createLead, listLeadsOperation } from './leads.ts';
import {
  accountingAccountRecord,
  invoiceRecord,
  journalEntryRecord,
  paymentRecord,
} from './ledger-records.ts';
import * as crmLedger from './migrations/0003-crm-ledger.ts';
import { archiveNote, createNote, listNotesOperation, updateNote } from './notes.ts';
import { recordPayment } from './payments.ts';

const identity = { name: 'crm', scopes: ['crm:read', 'crm:write'] } as const;

export const crmModule: ModuleDefinition<typeof identity, CrmTables> = {
  ...identity,
  migrations: { '0003-crm-ledger': crmLedger },
  operations: [
    createContact,
    searchContactsOperation,
    createCompany,
    searchCompaniesOperation,
    createLead,
    listLeadsOperation,
    convertLead,
    createDealStage,
    listDealStages,
    createDeal,
    updateDeal,
    updateDealStage,
    createInvoice,
    listInvoicesOperation,
    updateInvoice,
    recordPayment,
    createAccountingAccount,
    listAccountingAccounts,
    createJournalEntry,
    listJournalEntriesOperation,
    updateJournalEntry,
    createNote,
    listNotesOperation,
    updateNote,
    archiveNote,
  ],
  recordTypes: [
    contactRecord,
    companyRecord,
    leadRecord,
    dealStageRecord,
    dealRecord,
    invoiceRecord,
    paymentRecord,
    accountingAccountRecord,
    journalEntryRecord,
    noteRecord,
  ],
  events: crmEvents,
  summary: [
    {
      module: 'crm',
      scope: 'crm:read',
      key: 'crm',
      compute: (db, workspaceId) => crmCounts(db, workspaceId),
    },
  ],
};
