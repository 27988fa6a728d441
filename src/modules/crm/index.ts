import type { ModuleDefinition } from '../../core/module.ts';
import { companyRecord, createCompany, searchCompaniesOperation } from './companies.ts';
import { contactRecord, createContact, searchContactsOperation } from './contacts.ts';
import { crmCounts } from './crm-store.ts';

export const crmModule: ModuleDefinition = {
  name: 'crm',
  operations: [createContact, searchContactsOperation, createCompany, searchCompaniesOperation],
  recordTypes: [contactRecord, companyRecord],
  events: [
    { name: 'contact.created', description: 'A contact was created; data is the contact.' },
    { name: 'company.created', description: 'A company was created; data is the company.' },
  ],
  summary: [{ module: 'crm', scope: 'crm:read', key: 'crm', compute: (db, workspaceId) => crmCounts(db, workspaceId) }],
};
