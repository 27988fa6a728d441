import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { newId } from '../../core/ids.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import { CompanySchema } from './crm-schemas.ts';
import { insertCompany, searchCompanies, toCompany } from './crm-store.ts';

export const companyRecord = defineRecordType({
  type: 'company',
  module: 'crm',
  table: 'companies',
  collection: '/v1/companies',
  key: 'company',
  readScope: 'crm:read',
  schema: CompanySchema,
  toResource: toCompany,
});

export const createCompany = defineOperation({
  name: 'create_company',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'company',
  summary: 'Create a company',
  description:
    'Creates a company (an organisation contacts and deals belong to). Search first (search_companies) to avoid duplicates. Emits company.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 500 }),
    domain: Type.Optional(Type.String({ maxLength: 255, description: 'E.g. acme.com.' })),
    website: Type.Optional(Type.String({ maxLength: 2048 })),
    notes: Type.Optional(Type.String({ maxLength: 20_000 })),
  }),
  rest: { method: 'POST', path: '/v1/companies' },
  responseKey: 'company',
  handler: async (ctx, input) => {
    const company = await insertCompany(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('cmp'),
      name: input.name,
      domain: input.domain ?? null,
      website: input.website ?? null,
      notes: input.notes ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
    ctx.audit({ targetType: 'company', targetId: company.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'company.created', targetType: 'company', targetId: company.id, data: company });
    return { body: { company }, createdId: company.id };
  },
});

export const searchCompaniesOperation = defineOperation({
  name: 'search_companies',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'Search companies',
  description: 'Lists companies, newest first; query matches name, domain, website and notes.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/companies' },
  heavy: hasTextQuery,
  responseKey: 'companies',
  handler: async (ctx, input) => {
    const page = await searchCompanies(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('search_companies', input),
    );
    return { body: listBody('companies', page) };
  },
});
