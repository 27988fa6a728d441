import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { Strict } from '../../core/schema.ts';
import { companyRecord } from './crm-records.ts';
import { searchCompanies } from './crm-store.ts';

export const createCompany = defineOperation({
  name: 'create_company',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'company',
  summary: 'Create a company',
  description:
    'Creates a company (an organisation contacts and deals belong to). Search first (search_companies) to avoid duplicates. Emits company.created.',
  input: Strict(companyRecord.createInput),
  rest: { method: 'POST', path: '/v1/companies' },
  responseKey: 'company',
  handler: async (ctx, input) => {
    const company = await companyRecord.insert(ctx.db, companyRecord.row(ctx, input));
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
