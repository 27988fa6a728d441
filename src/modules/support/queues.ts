import { Type } from '@sinclair/typebox';
import { inputFields, withoutNulls } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { FreeFields, Strict } from '../../core/schema.ts';
import { SupportQueueSchema } from './support-schemas.ts';
import { findQueueByKey, insertQueue, listQueues, toQueue } from './support-store.ts';

export const queueRecord = defineRecordType({
  type: 'support_queue',
  module: 'support',
  table: 'support_queues',
  collection: '/v1/support/queues',
  key: 'queue',
  readScope: 'support:read',
  schema: SupportQueueSchema,
  toResource: toQueue,
});

export const queueStatus = Enum(['active', 'paused', 'archived'] as const);
export const priority = Enum(['low', 'normal', 'high', 'urgent'] as const);
const minutes = (what: string) =>
  Type.Optional(Type.Integer({ minimum: 0, maximum: 5_256_000, description: `${what}; none when absent.` }));

export const createSupportQueue = defineOperation({
  name: 'create_support_queue',
  module: 'support',
  scopes: ['support:write'],
  kind: 'create',
  creates: 'support_queue',
  summary: 'Create a support queue',
  description:
    'Creates a support queue. Its tickets take its default_priority (default normal) and default_assignee_id, and SLA due times from its target minutes. Only active queues (the default) take new tickets. Emits support_queue.created.',
  input: Strict({
    key: Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$',
      description: 'Unique, e.g. billing.',
    }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    status: Type.Optional(queueStatus),
    default_assignee_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    default_priority: Type.Optional(priority),
    first_response_target_minutes: minutes('From creation to the first outbound message'),
    next_response_target_minutes: minutes('From an inbound message after a reply to the next outbound one'),
    resolution_target_minutes: minutes('From creation to solved'),
    custom_fields: Type.Optional(FreeFields()),
  }),
  rest: { method: 'POST', path: '/v1/support/queues' },
  responseKey: 'queue',
  handler: async (ctx, input) => {
    const taken = await findQueueByKey(ctx.db, ctx.workspaceId, input.key);
    if (taken) throw validationFailed([{ field: 'key', message: `is already used by queue ${taken.id}` }]);
    const row = {
      workspace_id: ctx.workspaceId,
      id: newId('sq'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      status: input.status ?? 'active',
      default_assignee_id: input.default_assignee_id ?? null,
      default_priority: input.default_priority ?? 'normal',
      first_response_target_minutes: input.first_response_target_minutes ?? null,
      next_response_target_minutes: input.next_response_target_minutes ?? null,
      resolution_target_minutes: input.resolution_target_minutes ?? null,
      custom_fields: JSON.stringify(withoutNulls(input.custom_fields)),
      created_at: ctx.now,
      updated_at: ctx.now,
    } as const;
    await uniquely(() => insertQueue(ctx.db, row), 'key', 'is already used by another queue');
    const queue = toQueue(row);
    ctx.audit({ targetType: 'support_queue', targetId: queue.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'support_queue.created', targetType: 'support_queue', targetId: queue.id, data: queue });
    return { body: { queue }, createdId: queue.id };
  },
});

export const listSupportQueues = defineOperation({
  name: 'list_support_queues',
  module: 'support',
  scopes: ['support:read'],
  kind: 'read',
  summary: 'List support queues',
  description:
    'Lists support queues, newest first; query matches key, name and description. custom_field_key with custom_field_value keeps queues whose field equals the value as text.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    status: Type.Optional(queueStatus),
    custom_field_key: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    custom_field_value: Type.Optional(Type.String({ maxLength: 1000 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/support/queues' },
  responseKey: 'queues',
  handler: async (ctx, input) => {
    if ((input.custom_field_key === undefined) !== (input.custom_field_value === undefined)) {
      const missing = input.custom_field_key === undefined ? 'custom_field_key' : 'custom_field_value';
      throw validationFailed([
        { field: missing, message: 'is required with the other custom_field_ filter' },
      ]);
    }
    const page = await listQueues(
      ctx.db,
      ctx.dialect,
      ctx.workspaceId,
      input,
      pageRequest('list_support_queues', input),
    );
    return { body: listBody('queues', page) };
  },
});
