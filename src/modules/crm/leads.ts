import { Type } from '@sinclair/typebox';
import { inputFields, withoutNulls } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { LeadSchema } from './crm-schemas.ts';
import { customFieldsInput } from './crm-shared.ts';
import { insertLead, listLeads, toLead } from './lead-store.ts';

export const leadRecord = defineRecordType({
  type: 'lead',
  module: 'crm',
  table: 'leads',
  collection: '/v1/leads',
  key: 'lead',
  readScope: 'crm:read',
  schema: LeadSchema,
  toResource: toLead,
});

const sourceInput = Enum(
  ['manual', 'website', 'referral', 'campaign', 'import', 'api', 'mcp', 'other'] as const,
  {
    description: 'On create, default api on REST, mcp on MCP.',
  },
);
const statusInput = Enum(['new', 'working', 'qualified', 'disqualified', 'converted'] as const);

export const createLead = defineOperation({
  name: 'create_lead',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'lead',
  summary: 'Create a lead',
  description:
    'Captures a lead (a prospect not yet a contact) in status new; convert_lead turns it into a contact, company and deal. Emits lead.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 500 }),
    email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
    phone: Type.Optional(Type.String({ maxLength: 64 })),
    company_name: Type.Optional(
      Type.String({ maxLength: 500, description: 'convert_lead creates this company.' }),
    ),
    title: Type.Optional(Type.String({ maxLength: 500, description: 'Job title.' })),
    source: Type.Optional(sourceInput),
    score: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
    custom_fields: Type.Optional(customFieldsInput()),
  }),
  rest: { method: 'POST', path: '/v1/leads' },
  responseKey: 'lead',
  handler: async (ctx, input) => {
    const lead = await insertLead(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('lead'),
      name: input.name,
      email: input.email ?? null,
      phone: input.phone ?? null,
      company_name: input.company_name ?? null,
      title: input.title ?? null,
      source: input.source ?? (ctx.surface === 'mcp' ? 'mcp' : 'api'),
      score: input.score ?? null,
      status: 'new',
      custom_fields: JSON.stringify(withoutNulls(input.custom_fields)),
      conversion_reason: null,
      converted_contact_id: null,
      converted_company_id: null,
      converted_deal_id: null,
      converted_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
    ctx.audit({ targetType: 'lead', targetId: lead.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'lead.created', targetType: 'lead', targetId: lead.id, data: lead });
    return { body: { lead }, createdId: lead.id };
  },
});

export const listLeadsOperation = defineOperation({
  name: 'list_leads',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'List leads',
  description:
    'Lists leads, newest first; query matches name, email, company_name and title. custom_field_key with custom_field_value matches that field by text (42, true, gold); the key alone matches leads having it.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    status: Type.Optional(statusInput),
    source: Type.Optional(sourceInput),
    custom_field_key: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    custom_field_value: Type.Optional(
      Type.String({ maxLength: 10_000, description: 'Needs custom_field_key.' }),
    ),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/leads' },
  heavy: heavyFilters({ indexed: ['status', 'source'], scans: ['custom_field_key'] }),
  responseKey: 'leads',
  handler: async (ctx, input) => {
    if (input.custom_field_value !== undefined && input.custom_field_key === undefined) {
      throw validationFailed([{ field: 'custom_field_key', message: 'is required with custom_field_value' }]);
    }
    const page = await listLeads(ctx.db, ctx.workspaceId, input, pageRequest('list_leads', input));
    return { body: listBody('leads', page) };
  },
});
