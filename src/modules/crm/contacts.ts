import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { newId } from '../../core/ids.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import { ContactSchema } from './crm-schemas.ts';
import { insertContact, searchContacts, toContact } from './crm-store.ts';

export const contactRecord = defineRecordType({
  type: 'contact',
  module: 'crm',
  table: 'contacts',
  collection: '/v1/contacts',
  key: 'contact',
  readScope: 'crm:read',
  schema: ContactSchema,
  toResource: toContact,
});

export const createContact = defineOperation({
  name: 'create_contact',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'contact',
  summary: 'Create a contact',
  description:
    'Creates a contact (a person). company_id must exist; without a company record give company_name. Search first (search_contacts) to avoid duplicates. Emits contact.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 500 }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    phone: Type.Optional(Type.String({ maxLength: 64 })),
    company_id: Type.Optional(Type.String({ minLength: 1 })),
    company_name: Type.Optional(Type.String({ maxLength: 500 })),
    notes: Type.Optional(Type.String({ maxLength: 20_000 })),
  }),
  rest: { method: 'POST', path: '/v1/contacts' },
  responseKey: 'contact',
  handler: async (ctx, input) => {
    const company = input.company_id ? await ctx.requireRecord('company', input.company_id) : undefined;
    const contact = await insertContact(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('con'),
      name: input.name,
      email: input.email ?? null,
      phone: input.phone ?? null,
      company_id: input.company_id ?? null,
      company_name: input.company_name ?? (company ? String(company.name) : null),
      notes: input.notes ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
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
