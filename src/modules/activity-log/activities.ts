import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { newId } from '../../core/ids.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { checkRelatedRecord } from '../../core/related-record.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { ActivitySchema } from './activity-schemas.ts';
import { insertActivity, searchActivities, toActivity } from './activity-store.ts';

export const activityRecord = defineRecordType({
  type: 'activity',
  module: 'activity_log',
  table: 'activities',
  collection: '/v1/activities',
  key: 'activity',
  readScope: 'activity:read',
  schema: ActivitySchema,
  toResource: toActivity,
});

const activityType = Enum(['note', 'call', 'email', 'meeting', 'agent_action'] as const);

export const logActivity = defineOperation({
  name: 'log_activity',
  module: 'activity_log',
  scopes: ['activity:write'],
  kind: 'create',
  creates: 'activity',
  summary: 'Log an activity',
  description:
    "Logs what happened (a note, call, email, meeting, or an agent's own action: type agent_action; agents should log what they did), optionally about an existing contact, company, deal, task or support ticket. Emits activity.logged.",
  input: Strict({
    type: activityType,
    summary: Type.String({ minLength: 1, maxLength: 1000 }),
    body: Type.Optional(Type.String({ maxLength: 100_000 })),
    related_resource_type: Type.Optional(
      Enum(['contact', 'company', 'deal', 'task', 'support_ticket'] as const),
    ),
    related_resource_id: Type.Optional(Type.String({ minLength: 1 })),
    occurred_at: Type.Optional(Type.String({ format: 'date-time', description: 'Default now.' })),
  }),
  rest: { method: 'POST', path: '/v1/activities' },
  responseKey: 'activity',
  handler: async (ctx, input) => {
    await checkRelatedRecord(ctx, input);
    const activity = await insertActivity(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('act'),
      type: input.type,
      summary: input.summary,
      body: input.body ?? null,
      related_resource_type: input.related_resource_type ?? null,
      related_resource_id: input.related_resource_id ?? null,
      occurred_at: input.occurred_at ? new Date(input.occurred_at).toISOString() : ctx.now,
      actor_type: ctx.actor.type,
      actor_credential_id: ctx.actor.credentialId,
      created_at: ctx.now,
      updated_at: ctx.now,
    });
    ctx.audit({ targetType: 'activity', targetId: activity.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'activity.logged', targetType: 'activity', targetId: activity.id, data: activity });
    return { body: { activity }, createdId: activity.id };
  },
});

export const searchActivityOperation = defineOperation({
  name: 'search_activity',
  module: 'activity_log',
  scopes: ['activity:read'],
  kind: 'read',
  summary: 'Search the activity log',
  description: 'Lists activities, newest logged first; query matches summary and body.',
  input: Strict({
    query: Type.Optional(Type.String({ maxLength: 500 })),
    type: Type.Optional(activityType),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/activities' },
  heavy: hasTextQuery,
  responseKey: 'activities',
  handler: async (ctx, input) => {
    const page = await searchActivities(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('search_activity', input),
    );
    return { body: listBody('activities', page) };
  },
});
