import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { Strict } from '../../core/schema.ts';
import { dealStageRecord } from './crm-records.ts';
import { BUILT_IN_KEYS, defaultPosition, findStageByKey, listStages } from './deal-store.ts';

export const createDealStage = defineOperation({
  name: 'create_deal_stage',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'deal_stage',
  summary: 'Create a custom deal stage',
  description:
    'Adds a custom pipeline stage beside the built-in ones (new, qualified, proposal, won, lost); its key then works as stage_key. Without position it goes after the last stage of its kind. Emits deal_stage.created.',
  input: Strict(dealStageRecord.createInput),
  rest: { method: 'POST', path: '/v1/deal-stages' },
  responseKey: 'stage',
  handler: async (ctx, input) => {
    if (BUILT_IN_KEYS.includes(input.key)) {
      throw validationFailed([{ field: 'key', message: `"${input.key}" is a built-in stage key` }]);
    }
    const duplicate = `a stage with key "${input.key}" already exists in this workspace`;
    if (await findStageByKey(ctx.db, ctx.workspaceId, input.key)) {
      throw validationFailed([{ field: 'key', message: duplicate }]);
    }
    const kind = input.kind ?? 'open';
    const row = dealStageRecord.row(ctx, {
      ...input,
      position: input.position ?? (await defaultPosition(ctx.db, ctx.workspaceId, kind)),
      kind,
    });
    const stage = await uniquely(() => dealStageRecord.insert(ctx.db, row), 'key', duplicate);
    ctx.audit({ targetType: 'deal_stage', targetId: stage.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'deal_stage.created', targetType: 'deal_stage', targetId: stage.id, data: stage });
    return { body: { stage }, createdId: stage.id };
  },
});

export const listDealStages = defineOperation({
  name: 'list_deal_stages',
  module: 'crm',
  scopes: ['crm:read'],
  kind: 'read',
  summary: 'List deal stages',
  description:
    'Lists the stages a deal can be in, by position: built-in ones (built_in true) and custom ones; their key is the stage_key of create_deal and update_deal. query matches key and name.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/deal-stages' },
  responseKey: 'stages',
  handler: async (ctx, input) => {
    const page = await listStages(ctx.db, ctx.workspaceId, input, pageRequest('list_deal_stages', input));
    return { body: listBody('stages', page) };
  },
});
