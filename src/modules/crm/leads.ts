import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { leadRecord, leadStatuses } from './crm-records.ts';
import { insertLead, listLeads } from './lead-store.ts';

export const createLead = defineOperation({
  name: 'create_lead',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'lead',
  summary: 'Create a lead',
  description:
    'Captures a lead (a prospect not yet a contact) in status new; convert_lead turns it into a contact, company and deal. Emits lead.created.',
  input: Strict(leadRecord.createInput),
  rest: { method: 'POST', path: '/v1/leads' },
  responseKey: 'lead',
  handler: async (ctx, input) => {
    const lead = await insertLead(
      ctx.db,
      leadRecord.row(ctx, {
        ...input,
        source: input.source ?? (ctx.surface === 'mcp' ? 'mcp' : 'api'),
        status: 'new',
      }),
    );
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
    status: Type.Optional(Enum(leadStatuses)),
    source: leadRecord.createInput.source,
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
