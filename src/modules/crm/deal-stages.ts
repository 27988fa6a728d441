import { Type } from '@sinclair/typebox';
import { inputFields, withoutNulls } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { DealStageSchema } from './crm-schemas.ts';
import { customFieldsInput } from './crm-shared.ts';
import type { DealStagesTable } from './crm-tables.ts';
import {
  BUILT_IN_KEYS,
  defaultPosition,
  findStageByKey,
  insertDealStage,
  listStages,
  toStage,
} from './deal-store.ts';

/** Custom stages only: the built-in ones are not stored (see deal-store.ts) and are read with list_deal_stages. */
export const dealStageRecord = defineRecordType({
  type: 'deal_stage',
  module: 'crm',
  table: 'deal_stages',
  collection: '/v1/deal-stages',
  key: 'stage',
  readScope: 'crm:read',
  schema: DealStageSchema,
  toResource: toStage,
});

export const stageKindInput = Enum(['open', 'won', 'lost'] as const, {
  description: 'won and lost close the deal (closed_at set).',
});

export const createDealStage = defineOperation({
  name: 'create_deal_stage',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'create',
  creates: 'deal_stage',
  summary: 'Create a custom deal stage',
  description:
    'Adds a custom pipeline stage beside the built-in ones (new, qualified, proposal, won, lost); its key then works as stage_key. Without position it goes after the last stage of its kind. Emits deal_stage.created.',
  input: Strict({
    key: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[a-z0-9_]+$',
      description: 'Unique; not a built-in key.',
    }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    position: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, description: 'Lower first.' })),
    kind: Type.Optional(stageKindInput),
    probability: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Percent.' })),
    color: Type.Optional(Type.String({ maxLength: 32, description: 'E.g. #2f80ed.' })),
    custom_fields: Type.Optional(customFieldsInput()),
  }),
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
    const row: DealStagesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('dstg'),
      key: input.key,
      name: input.name,
      position: input.position ?? (await defaultPosition(ctx.db, ctx.workspaceId, kind)),
      kind,
      probability: input.probability ?? null,
      color: input.color ?? null,
      custom_fields: JSON.stringify(withoutNulls(input.custom_fields)),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertDealStage(ctx.db, row), 'key', duplicate);
    const stage = toStage(row);
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
