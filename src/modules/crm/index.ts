import type { ModuleDefinition } from '../../core/module.ts';
import {
  accountingAccountRecord,
  createAccountingAccount,
  listAccountingAccounts,
} from './accounting-accounts.ts';
import { companyRecord, createCompany, searchCompaniesOperation } from './companies.ts';
import { contactRecord, createContact, searchContactsOperation } from './contacts.ts';
import { crmEvents } from './crm-events.ts';
import { crmCounts } from './crm-summary-store.ts';
import type { CrmTables } from './crm-tables.ts';
import { createDealStage, dealStageRecord, listDealStages } from './deal-stages.ts';
import { createDeal, dealRecord, updateDeal, updateDealStage } from './deals.ts';
import { createInvoice, invoiceRecord, listInvoicesOperation, updateInvoice } from './invoices.ts';
import {
  createJournalEntry,
  journalEntryRecord,
  listJournalEntriesOperation,
  updateJournalEntry,
} from './journal-entries.ts';
import { convertLead } from './lead-conversion.ts';
import { createLead, leadRecord, listLeadsOperation } from './leads.ts';
import * as crmLedger from './migrations/0003-crm-ledger.ts';
import { archiveNote, createNote, listNotesOperation, noteRecord, updateNote } from './notes.ts';
import { paymentRecord, recordPayment } from './payments.ts';

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
