import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { hasTextQuery, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { checkRelatedRecord } from '../../core/related-record.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { activityRecord, activityTypes } from './activity-records.ts';
import { searchActivities } from './activity-store.ts';

const activityType = Enum(activityTypes);

export const logActivity = defineOperation({
  name: 'log_activity',
  module: 'activity_log',
  scopes: ['activity:write'],
  kind: 'create',
  creates: 'activity',
  summary: 'Log an activity',
  description:
    "Logs what happened (a note, call, email, meeting, or an agent's own action: type agent_action; agents should log what they did), optionally about an existing contact, company, deal, task or support ticket. Emits activity.logged.",
  input: Strict(activityRecord.createInput),
  rest: { method: 'POST', path: '/v1/activities' },
  responseKey: 'activity',
  handler: async (ctx, input) => {
    await checkRelatedRecord(ctx, input);
    const activity = await activityRecord.insert(
      ctx.db,
      activityRecord.row(ctx, {
        ...input,
        occurred_at: input.occurred_at ? new Date(input.occurred_at).toISOString() : ctx.now,
        actor_type: ctx.actor.type,
        actor_credential_id: ctx.actor.credentialId,
      }),
    );
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
