import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { Strict } from '../../core/schema.ts';
import {
  type Company,
  type Contact,
  companyRecord,
  contactRecord,
  dealRecord,
  type LeadRow,
  leadRecord,
} from './crm-records.ts';
import { type LeadConversion, LeadConversionSchema } from './crm-schemas.ts';
import { idInput } from './crm-shared.ts';
import { createDealRecord } from './deals.ts';
import { findLead, updateLeadRow } from './lead-store.ts';

interface ConvertInput {
  lead_id: string;
  company_id?: string;
  contact_id?: string;
  create_deal?: boolean;
  deal_name?: string;
  stage_key?: string;
  amount_cents?: number;
  currency?: string;
  conversion_reason?: string;
}

/** The records a conversion produced, read back from the lead's stored IDs. */
async function conversionResult(ctx: OperationContext, lead: LeadRow) {
  const body: Record<string, unknown> = { lead: leadRecord.toRecord(lead) };
  body.contact = await ctx.requireRecord('contact', lead.converted_contact_id!);
  if (lead.converted_company_id) body.company = await ctx.requireRecord('company', lead.converted_company_id);
  if (lead.converted_deal_id) body.deal = await ctx.requireRecord('deal', lead.converted_deal_id);
  return body;
}

/**
 * A converted lead answers a repeated conversion with the records it produced; a request naming other
 * records than those fails instead of silently returning something else.
 */
function checkRepeat(lead: LeadRow, input: ConvertInput) {
  const conflicts: { field: string; message: string }[] = [];
  if (input.contact_id !== undefined && input.contact_id !== lead.converted_contact_id) {
    conflicts.push({
      field: 'contact_id',
      message: `the lead was already converted to contact ${lead.converted_contact_id}`,
    });
  }
  if (input.company_id !== undefined && input.company_id !== lead.converted_company_id) {
    conflicts.push({
      field: 'company_id',
      message: `the lead was already converted with company ${lead.converted_company_id ?? '(none)'}`,
    });
  }
  if (input.create_deal === true && !lead.converted_deal_id) {
    conflicts.push({
      field: 'create_deal',
      message: 'the lead was already converted without a deal; use create_deal',
    });
  }
  if (conflicts.length) throw validationFailed(conflicts, 'The lead is already converted, to other records.');
}

async function convert(ctx: OperationContext, input: ConvertInput) {
  const lead = await findLead(ctx.db, ctx.workspaceId, input.lead_id);
  if (!lead) throw notFound('lead');
  if (lead.status === 'converted') {
    checkRepeat(lead, input);
    ctx.audit({ targetType: 'lead', targetId: lead.id, action: 'convert', changedFields: [] });
    return conversionResult(ctx, lead);
  }
  if (input.create_deal !== true) {
    const dealOnly = (['deal_name', 'stage_key', 'amount_cents', 'currency'] as const).find(
      (f) => input[f] !== undefined,
    );
    if (dealOnly)
      throw validationFailed([{ field: dealOnly, message: 'applies only with create_deal true' }]);
  }

  // Given records must exist before anything is written; the rest runs in the call's transaction, so a
  // failure at any later step (an unknown stage_key) rolls back every record created before it.
  const givenContact = input.contact_id ? await ctx.requireRecord('contact', input.contact_id) : undefined;
  let company = input.company_id ? await ctx.requireRecord('company', input.company_id) : undefined;
  if (!company && lead.company_name) {
    company = await companyRecord.insert(ctx.db, companyRecord.row(ctx, { name: lead.company_name }));
    ctx.audit({
      targetType: 'company',
      targetId: String(company.id),
      action: 'create',
      changedFields: ['name'],
    });
    ctx.emit({ name: 'company.created', targetType: 'company', targetId: String(company.id), data: company });
  }
  let contact = givenContact;
  if (!contact) {
    contact = await contactRecord.insert(
      ctx.db,
      contactRecord.row(ctx, {
        name: lead.name,
        email: lead.email,
        phone: lead.phone,
        company_id: company ? String(company.id) : null,
        company_name: company ? String(company.name) : lead.company_name,
      }),
    );
    const fields = ['name', 'email', 'phone', 'company_id', 'company_name'].filter(
      (f) => contact![f] !== null,
    );
    ctx.audit({
      targetType: 'contact',
      targetId: String(contact.id),
      action: 'create',
      changedFields: fields,
    });
    ctx.emit({ name: 'contact.created', targetType: 'contact', targetId: String(contact.id), data: contact });
  }
  const deal =
    input.create_deal === true
      ? await createDealRecord(ctx, {
          name: input.deal_name ?? lead.name,
          stage_key: input.stage_key ?? 'new',
          amount_cents: input.amount_cents ?? 0,
          currency: input.currency ?? 'USD',
          ...(company ? { company_id: String(company.id) } : {}),
          contact_id: String(contact.id),
        })
      : undefined;

  const changes: Partial<LeadRow> = {
    status: 'converted',
    conversion_reason: input.conversion_reason ?? null,
    converted_contact_id: String(contact.id),
    converted_company_id: company ? String(company.id) : null,
    converted_deal_id: deal?.id ?? null,
    converted_at: ctx.now,
    updated_at: ctx.now,
  };
  await updateLeadRow(ctx.db, ctx.workspaceId, lead.id, changes);
  const converted = leadRecord.toRecord({ ...lead, ...changes });
  const changed = ['status', 'converted_contact_id', 'converted_at'];
  if (company) changed.push('converted_company_id');
  if (deal) changed.push('converted_deal_id');
  if (input.conversion_reason !== undefined) changed.push('conversion_reason');
  ctx.audit({ targetType: 'lead', targetId: lead.id, action: 'convert', changedFields: changed });
  // requireRecord returns the loaded resource untyped: these are the contact and company resources.
  const result: LeadConversion = { lead: converted, contact: contact as Contact };
  if (company) result.company = company as Company;
  if (deal) result.deal = deal;
  ctx.emit({ name: 'lead.converted', targetType: 'lead', targetId: lead.id, data: result });
  return result;
}

export const convertLead = defineOperation({
  name: 'convert_lead',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'action',
  summary: 'Convert a lead into a contact, company and deal',
  description:
    'Turns a lead, all or nothing, into a contact and (when it has company_name) a company, or links the contact_id/company_id given (must exist); create_deal adds a deal. The lead becomes converted and keeps the IDs; converting it again creates nothing and returns the same records. Emits lead.converted, plus contact.created, company.created, deal.created for new records.',
  input: Strict({
    lead_id: idInput(),
    company_id: Type.Optional(idInput()),
    contact_id: Type.Optional(idInput()),
    create_deal: Type.Optional(Type.Boolean()),
    deal_name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: "Default the lead's name." }),
    ),
    stage_key: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Default new.' })),
    amount_cents: dealRecord.createInput.amount_cents,
    currency: dealRecord.createInput.currency,
    conversion_reason: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  rest: { method: 'POST', path: '/v1/leads/{lead_id}/convert' },
  responseKey: 'lead',
  response: LeadConversionSchema,
  handler: async (ctx, input) => ({ body: await convert(ctx, input) }),
});
