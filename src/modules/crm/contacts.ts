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
    'Creates a contact (a person). Link it to a company with company_id (must exist), or give company_name alone when no company record exists. Use search_contacts first to avoid duplicates; send an idempotency_key so a retry returns the same contact. Emits contact.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 500 }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    phone: Type.Optional(Type.String({ maxLength: 64 })),
    company_id: Type.Optional(
      Type.String({ minLength: 1, description: 'ID of an existing company (cmp_...).' }),
    ),
    company_name: Type.Optional(
      Type.String({ maxLength: 500, description: 'Company name as text, used when no company ID exists.' }),
    ),
    notes: Type.Optional(
      Type.String({ maxLength: 20_000, description: 'Free text; each write overwrites it.' }),
    ),
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
  description:
    'Lists contacts, newest first. `query` matches name, email, company name and notes case-insensitively; company_id narrows to one company.',
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
