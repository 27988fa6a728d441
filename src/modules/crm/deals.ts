import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, mergedJson, requireSomeField, withoutNulls } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { DealChangeBodySchema, DealSchema } from './crm-schemas.ts';
import {
  centsInput,
  currencyInput,
  customFieldsInput,
  type Fields,
  idInput,
  mergedFieldsInput,
} from './crm-shared.ts';
import type { DealsTable } from './crm-tables.ts';
import { type DealResource, findDeal, insertDeal, stageKind, toDeal, updateDealRow } from './deal-store.ts';

export const dealRecord = defineRecordType({
  type: 'deal',
  module: 'crm',
  table: 'deals',
  collection: '/v1/deals',
  key: 'deal',
  readScope: 'crm:read',
  schema: DealSchema,
  toResource: toDeal,
});

const stageKeyInput = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Built-in (new, qualified, proposal, won, lost) or custom (list_deal_stages). Preferred.',
});
const stageInput = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Alias of stage_key; if both are sent they must agree.',
});
const notesInput = Type.String({
  maxLength: 20_000,
  description: 'Overwritten by each write; create_note accumulates notes.',
});
const dealIdInput = idInput();

/** stage_key wins, stage is accepted; both must agree. Returns the key and the field it came from. */
function requestedStage(input: {
  stage?: string;
  stage_key?: string;
}): { key: string; field: string } | undefined {
  if (input.stage !== undefined && input.stage_key !== undefined && input.stage !== input.stage_key) {
    throw validationFailed([
      { field: 'stage', message: `must equal stage_key ("${input.stage_key}") when both are sent` },
    ]);
  }
  if (input.stage_key !== undefined) return { key: input.stage_key, field: 'stage_key' };
  if (input.stage !== undefined) return { key: input.stage, field: 'stage' };
  return undefined;
}

export interface NewDeal {
  name: string;
  stage?: string;
  stage_key?: string;
  amount_cents?: number;
  currency?: string;
  company_id?: string;
  contact_id?: string;
  custom_fields?: Fields;
  notes?: string;
}

/** Creates a deal with its audit event and deal.created; shared by create_deal and convert_lead. */
export async function createDealRecord(
  ctx: OperationContext,
  input: NewDeal,
  stageField = 'stage_key',
): Promise<DealResource> {
  const stage = requestedStage(input) ?? { key: 'new', field: stageField };
  const kind = await stageKind(ctx.db, ctx.workspaceId, stage.key, stage.field);
  if (input.company_id) await ctx.requireRecord('company', input.company_id);
  if (input.contact_id) await ctx.requireRecord('contact', input.contact_id);
  const row: DealsTable = {
    workspace_id: ctx.workspaceId,
    id: newId('deal'),
    name: input.name,
    stage_key: stage.key,
    amount_cents: input.amount_cents ?? 0,
    currency: input.currency ?? 'USD',
    company_id: input.company_id ?? null,
    contact_id: input.contact_id ?? null,
    custom_fields: JSON.stringify(withoutNulls(input.custom_fields)),
    notes: input.notes ?? null,
    closed_at: kind === 'open' ? null : ctx.now,
    created_at: ctx.now,
    updated_at: ctx.now,
  };
  const deal = await insertDeal(ctx.db, row);
  ctx.audit({ targetType: 'deal', targetId: deal.id, action: 'create', changedFields: inputFields(input) });
  ctx.emit({ name: 'deal.created', targetType: 'deal', targetId: deal.id, data: deal });
  return deal;
}

export const createDeal = defineOperation({
  name: 'create_deal',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'deal',
  summary: 'Create a deal',
  description:
    'Creates a deal (a sales opportunity) in a pipeline stage, default new. company_id and contact_id must exist. A deal created in a won or lost stage gets closed_at. Emits deal.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 500 }),
    company_id: Type.Optional(idInput()),
    contact_id: Type.Optional(idInput()),
    stage: Type.Optional(stageInput),
    stage_key: Type.Optional(stageKeyInput),
    amount_cents: Type.Optional(centsInput(0, 'Default 0.')),
    currency: Type.Optional(currencyInput()),
    custom_fields: Type.Optional(customFieldsInput()),
    notes: Type.Optional(notesInput),
  }),
  rest: { method: 'POST', path: '/v1/deals' },
  responseKey: 'deal',
  handler: async (ctx, input) => {
    const deal = await createDealRecord(ctx, input);
    return { body: { deal }, createdId: deal.id };
  },
});

interface DealPatch {
  stage?: string;
  stage_key?: string;
  amount_cents?: number;
  currency?: string;
  custom_fields?: Fields;
  notes?: string;
}

export interface Change {
  field: string;
  from: unknown;
  to: unknown;
}

/**
 * The one way a deal changes (update_deal and update_deal_stage): stage with closed_at, amount, currency,
 * custom_fields merged key by key, notes. Audits the changed field names and emits deal.stage_changed
 * and/or deal.updated. Sending the current values changes nothing.
 */
async function changeDeal(ctx: OperationContext, dealId: string, patch: DealPatch) {
  requireSomeField(patch, ['stage', 'stage_key', 'amount_cents', 'currency', 'custom_fields', 'notes']);
  const row = await findDeal(ctx.db, ctx.workspaceId, dealId);
  if (!row) throw notFound('deal');
  const before = toDeal(row);
  const proposed = { ...patch, custom_fields: mergedJson(row.custom_fields, patch.custom_fields) };
  const { changes: columns } = diffFields(row, proposed, [
    'amount_cents',
    'currency',
    'notes',
    'custom_fields',
  ]);
  const next: DealsTable = { ...row, ...columns };
  const stage = requestedStage(patch);
  if (stage && stage.key !== row.stage_key) {
    const kind = await stageKind(ctx.db, ctx.workspaceId, stage.key, stage.field);
    next.stage_key = stage.key;
    // Closing keeps the first close time when moving between won and lost; reopening clears it.
    next.closed_at = kind === 'open' ? null : (row.closed_at ?? ctx.now);
  }

  const after = toDeal(next);
  const changes: Change[] = [];
  const compared = ['stage', 'amount_cents', 'currency', 'custom_fields', 'notes', 'closed_at'] as const;
  for (const field of compared) {
    const changed =
      field === 'custom_fields' ? next.custom_fields !== row.custom_fields : before[field] !== after[field];
    if (changed) changes.push({ field, from: before[field], to: after[field] });
  }
  if (changes.length === 0) {
    ctx.audit({ targetType: 'deal', targetId: dealId, changedFields: [] });
    return { deal: before, changes };
  }
  next.updated_at = ctx.now;
  const { workspace_id: _w, id: _id, created_at: _c, ...set } = next;
  await updateDealRow(ctx.db, ctx.workspaceId, dealId, set);
  const deal = toDeal(next);
  ctx.audit({ targetType: 'deal', targetId: dealId, changedFields: changes.map((c) => c.field) });
  if (before.stage !== deal.stage) {
    ctx.emit({
      name: 'deal.stage_changed',
      targetType: 'deal',
      targetId: dealId,
      data: { ...deal, previous_stage: before.stage },
    });
  }
  if (changes.some((c) => c.field !== 'stage' && c.field !== 'closed_at')) {
    ctx.emit({ name: 'deal.updated', targetType: 'deal', targetId: dealId, data: deal });
  }
  return { deal, changes };
}

const updateDealFields = {
  deal_id: dealIdInput,
  stage: Type.Optional(stageInput),
  stage_key: Type.Optional(stageKeyInput),
  amount_cents: Type.Optional(centsInput(0)),
  currency: Type.Optional(currencyInput(null)),
  custom_fields: Type.Optional(mergedFieldsInput()),
  notes: Type.Optional(notesInput),
};

export const updateDeal = defineOperation({
  name: 'update_deal',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'update',
  summary: 'Update a deal',
  description:
    'Moves a deal to another stage and/or changes its amount, currency, custom_fields or notes. Entering a won or lost stage sets closed_at; returning to an open one clears it. Emits deal.stage_changed on a stage change, deal.updated for other fields. REST PATCH with dry_run previews.',
  input: Strict(updateDealFields),
  rest: { method: 'PATCH', path: '/v1/deals/{deal_id}' },
  responseKey: 'deal',
  handler: async (ctx, input) => {
    const { deal } = await changeDeal(ctx, input.deal_id, input);
    return { body: { deal } };
  },
});

export const updateDealStage = defineOperation({
  name: 'update_deal_stage',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'update',
  deprecated: { replacedBy: 'update_deal' },
  dryRun: true,
  summary: 'Move a deal to a stage (deprecated)',
  description:
    'Moves a deal to a built-in stage. dry_run true writes nothing and returns the deal as it would be with changes [{field, from, to}]. Emits deal.stage_changed when applied and the stage changes.',
  input: Strict({
    deal_id: dealIdInput,
    stage: Enum(['new', 'qualified', 'proposal', 'won', 'lost'] as const),
  }),
  rest: {
    method: 'PATCH',
    path: '/v1/deals/{deal_id}',
    // Any REST body carrying dry_run is served here, with update_deal's fields.
    when: (input) => input.dry_run !== undefined,
    input: Strict(updateDealFields, {
      description:
        'A body with dry_run is served by the deprecated update_deal_stage: it accepts every update_deal ' +
        'field, and with dry_run true previews the change ({deal, changes, dry_run: true}) without applying it.',
    }),
  },
  responseKey: 'deal',
  response: DealChangeBodySchema,
  handler: async (ctx, input: DealPatch & { deal_id: string }) => {
    const { deal, changes } = await changeDeal(ctx, input.deal_id, input);
    return { body: { deal, changes } };
  },
});
