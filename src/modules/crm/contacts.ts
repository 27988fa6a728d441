import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { Strict } from '../../core/schema.ts';
import { contactRecord } from './crm-records.ts';
import { searchContacts } from './crm-store.ts';

export const createContact = defineOperation({
  name: 'create_contact',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'contact',
  summary: 'Create a contact',
  description:
    'Creates a contact (a person). company_id must exist; without a company record give company_name. Search first (search_contacts) to avoid duplicates. Emits contact.created.',
  input: Strict(contactRecord.createInput),
  rest: { method: 'POST', path: '/v1/contacts' },
  responseKey: 'contact',
  handler: async (ctx, input) => {
    const company = input.company_id ? await ctx.requireRecord('company', input.company_id) : undefined;
    const contact = await contactRecord.insert(
      ctx.db,
      contactRecord.row(ctx, {
        ...input,
        company_name: input.company_name ?? (company ? String(company.name) : null),
      }),
    );
    ctx.audit({ targetType: 'contact', targetId: contact.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'contact.created', targetType: 'contact', targetId: contact.id, data: contact });
    return { body: { contact }, createdId: contact.id };
  },
});

export const searchContactsOperation = defineOperation({
  name: 'search_contacts',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'Search contacts',
  description: 'Lists contacts, newest first; query matches name, email, company name and notes.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    company_id: Type.Optional(Type.String({ minLength: 1 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/contacts' },
  heavy: hasTextQuery,
  responseKey: 'contacts',
  handler: async (ctx, input) => {
    const page = await searchContacts(ctx.db, ctx.workspaceId, input, pageRequest('search_contacts', input));
    return { body: listBody('contacts', page) };
  },
});
