import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { updateRecord } from '../../core/record-update.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { type Deal, dealRecord } from './crm-records.ts';
import { DealChangeBodySchema } from './crm-schemas.ts';
import { type Fields, idInput } from './crm-shared.ts';
import { stageKind } from './deal-store.ts';

const stageInput = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'Alias of stage_key; if both are sent they must agree.',
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
): Promise<Deal> {
  const stage = requestedStage(input) ?? { key: 'new', field: stageField };
  const kind = await stageKind(ctx.db, ctx.workspaceId, stage.key, stage.field);
  if (input.company_id) await ctx.requireRecord('company', input.company_id);
  if (input.contact_id) await ctx.requireRecord('contact', input.contact_id);
  const row = dealRecord.row(ctx, {
    ...input,
    stage_key: stage.key,
    closed_at: kind === 'open' ? null : ctx.now,
  });
  const deal = await dealRecord.insert(ctx.db, row);
  ctx.audit({ targetType: 'deal', targetId: deal.id, action: 'create', changedFields: inputFields(input) });
  ctx.emit({ name: 'deal.created', targetType: 'deal', targetId: deal.id, data: deal });
  return deal;
}

// The record's create input, in the order the operation has always listed it.
const { name, company_id, contact_id, ...dealInput } = dealRecord.createInput;

export const createDeal = defineOperation({
  name: 'create_deal',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'deal',
  summary: 'Create a deal',
  description:
    'Creates a deal (a sales opportunity) in a pipeline stage, default new. company_id and contact_id must exist. A deal created in a won or lost stage gets closed_at. Emits deal.created.',
  input: Strict({ name, company_id, contact_id, stage: Type.Optional(stageInput), ...dealInput }),
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

/** The fields whose change update_deal_stage reports, in this order; the audit names the same. */
const REPORTED = ['stage', 'amount_cents', 'currency', 'custom_fields', 'notes', 'closed_at'] as const;

/**
 * The one way a deal changes (update_deal and update_deal_stage): stage with closed_at, amount, currency,
 * custom_fields merged key by key, notes. Audits the changed field names and emits deal.stage_changed
 * and/or deal.updated. Sending the current values changes nothing.
 */
async function changeDeal(ctx: OperationContext, dealId: string, patch: DealPatch) {
  let changes: Change[] = [];
  const { before, record: deal } = await updateRecord(ctx, dealRecord, dealId, patch, {
    fields: ['amount_cents', 'currency', 'notes', 'custom_fields'],
    require: ['stage', 'stage_key', 'amount_cents', 'currency', 'custom_fields', 'notes'],
    apply: async ({ row, next }) => {
      const stage = requestedStage(patch);
      if (stage && stage.key !== row.stage_key) {
        const kind = await stageKind(ctx.db, ctx.workspaceId, stage.key, stage.field);
        next.stage_key = stage.key;
        // Closing keeps the first close time when moving between won and lost; reopening clears it.
        next.closed_at = kind === 'open' ? null : (row.closed_at ?? ctx.now);
      }
    },
    audit: ({ row, next }) => {
      const [from, to] = [dealRecord.toRecord(row), dealRecord.toRecord(next)];
      changes = REPORTED.filter((field) =>
        field === 'custom_fields' ? next.custom_fields !== row.custom_fields : from[field] !== to[field],
      ).map((field) => ({ field, from: from[field], to: to[field] }));
      return changes.map((change) => change.field);
    },
  });
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
  ...dealRecord.patchInput,
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
