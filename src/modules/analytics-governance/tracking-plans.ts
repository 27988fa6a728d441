import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { app } from './event-definitions.ts';
import { AnalyticsTrackingPlanSchema } from './governance-schemas.ts';
import {
  activePlan,
  eventsByName,
  findPlan,
  insertPlan,
  listPlans,
  toTrackingPlan,
  updatePlanRow,
} from './governance-store.ts';
import type { AnalyticsTrackingPlansTable } from './governance-tables.ts';

export const planRecord = defineRecordType({
  type: 'analytics_tracking_plan',
  module: 'analytics_governance',
  table: 'analytics_tracking_plans',
  collection: '/v1/analytics/tracking-plans',
  key: 'tracking_plan',
  readScope: 'analytics:read',
  hiddenWhen: 'archived_at',
  schema: AnalyticsTrackingPlanSchema,
  toResource: toTrackingPlan,
});

const planId = Type.String({ minLength: 1 });
const status = (description?: string) =>
  Enum(['draft', 'active'] as const, description ? { description } : {});
const oneActive = 'One active plan per app; validate_event applies it.';
const events = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 1000,
  uniqueItems: true,
  description: 'Events defined for its app (define_event).',
});

async function checkEvents(ctx: OperationContext, planApp: string, names: string[]): Promise<void> {
  const defined = await eventsByName(ctx.db, ctx.workspaceId, planApp, names);
  const missing = names.map((name, i) => ({ name, i })).filter(({ name }) => !defined.has(name));
  if (missing.length) {
    throw validationFailed(
      missing.map(({ name, i }) => ({
        field: `events[${i}]`,
        message: `${name} is not a defined event of app ${planApp}`,
      })),
    );
  }
}

/** One active plan per app, so validate_event knows which plan applies. */
async function checkSingleActive(ctx: OperationContext, planApp: string, exceptId?: string): Promise<void> {
  const active = await activePlan(ctx.db, ctx.workspaceId, planApp, exceptId);
  if (active) {
    throw validationFailed([
      {
        field: 'status',
        message: `plan ${active.id} is already active for app ${planApp}; set it to draft or archive it first`,
      },
    ]);
  }
}

export const createTrackingPlan = defineOperation({
  name: 'create_tracking_plan',
  module: 'analytics_governance',
  scopes: ['analytics:write'],
  kind: 'create',
  creates: 'analytics_tracking_plan',
  summary: 'Create a tracking plan',
  description:
    'Creates a tracking plan for one app: the events it includes, a name and description. Emits analytics_tracking_plan.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    app,
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    events: Type.Optional(events),
    status: Type.Optional(status(`Default draft. ${oneActive}`)),
  }),
  rest: { method: 'POST', path: '/v1/analytics/tracking-plans' },
  responseKey: 'tracking_plan',
  handler: async (ctx, input) => {
    await checkEvents(ctx, input.app, input.events ?? []);
    if (input.status === 'active') await checkSingleActive(ctx, input.app);
    const row: AnalyticsTrackingPlansTable = {
      workspace_id: ctx.workspaceId,
      id: newId('atp'),
      name: input.name,
      app: input.app,
      description: input.description ?? null,
      events: JSON.stringify(input.events ?? []),
      status: input.status ?? 'draft',
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await insertPlan(ctx.db, row);
    const plan = toTrackingPlan(row);
    ctx.audit({ targetType: 'analytics_tracking_plan', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'analytics_tracking_plan.created',
      targetType: 'analytics_tracking_plan',
      targetId: row.id,
      data: plan,
    });
    return { body: { tracking_plan: plan }, createdId: row.id };
  },
});

export const listTrackingPlans = defineOperation({
  name: 'list_tracking_plans',
  module: 'analytics_governance',
  scopes: ['analytics:read'],
  kind: 'read',
  summary: 'List tracking plans',
  description:
    'Lists tracking plans, newest first; archived ones are left out (get_record_history still reads them).',
  input: Strict({ app: Type.Optional(app), status: Type.Optional(status()), ...pageInput }),
  rest: { method: 'GET', path: '/v1/analytics/tracking-plans' },
  responseKey: 'tracking_plans',
  handler: async (ctx, input) => {
    const page = await listPlans(ctx.db, ctx.workspaceId, input, pageRequest('list_tracking_plans', input));
    return { body: listBody('tracking_plans', page) };
  },
});

export const updateTrackingPlan = defineOperation({
  name: 'update_tracking_plan',
  module: 'analytics_governance',
  scopes: ['analytics:write'],
  kind: 'update',
  summary: 'Update a tracking plan',
  description:
    "Changes a tracking plan's name, description, events (replaced) or status. Its app cannot change; archived plans are not found. Emits analytics_tracking_plan.updated.",
  input: Strict({
    tracking_plan_id: planId,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    description: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
    events: Type.Optional(events),
    status: Type.Optional(status(oneActive)),
  }),
  rest: { method: 'PATCH', path: '/v1/analytics/tracking-plans/{tracking_plan_id}' },
  responseKey: 'tracking_plan',
  handler: async (ctx, input) => {
    requireSomeField(input, ['name', 'description', 'events', 'status']);
    const row = await findPlan(ctx.db, ctx.workspaceId, input.tracking_plan_id);
    if (!row || row.archived_at) throw notFound('tracking plan');
    if (input.events !== undefined) await checkEvents(ctx, row.app, input.events);
    if (input.status === 'active') await checkSingleActive(ctx, row.app, row.id);
    const proposed = { ...input, events: input.events && JSON.stringify(input.events) };
    const { changes, changed } = diffFields(row, proposed, ['name', 'description', 'events', 'status']);
    ctx.audit({ targetType: 'analytics_tracking_plan', targetId: row.id, changedFields: changed });
    if (changed.length === 0) return { body: { tracking_plan: toTrackingPlan(row) } };
    const set = { ...changes, updated_at: ctx.now };
    await updatePlanRow(ctx.db, ctx.workspaceId, row.id, set);
    const plan = toTrackingPlan({ ...row, ...set });
    ctx.emit({
      name: 'analytics_tracking_plan.updated',
      targetType: 'analytics_tracking_plan',
      targetId: row.id,
      data: plan,
    });
    return { body: { tracking_plan: plan } };
  },
});

export const archiveTrackingPlan = defineOperation({
  name: 'archive_tracking_plan',
  module: 'analytics_governance',
  scopes: ['analytics:write'],
  kind: 'archive',
  summary: 'Archive a tracking plan',
  description:
    'Archives a tracking plan: hidden from lists and lookups, no longer applied by validate_event, history kept. Archiving again returns it unchanged. Emits analytics_tracking_plan.archived.',
  input: Strict({ tracking_plan_id: planId }),
  rest: { method: 'DELETE', path: '/v1/analytics/tracking-plans/{tracking_plan_id}' },
  responseKey: 'tracking_plan',
  handler: async (ctx, input) => {
    const row = await findPlan(ctx.db, ctx.workspaceId, input.tracking_plan_id);
    if (!row) throw notFound('tracking plan');
    if (row.archived_at) {
      ctx.audit({ targetType: 'analytics_tracking_plan', targetId: row.id, changedFields: [] });
      return { body: { tracking_plan: toTrackingPlan(row) } };
    }
    const changes = { status: 'archived' as const, archived_at: ctx.now, updated_at: ctx.now };
    await updatePlanRow(ctx.db, ctx.workspaceId, row.id, changes);
    const plan = toTrackingPlan({ ...row, ...changes });
    ctx.audit({
      targetType: 'analytics_tracking_plan',
      targetId: row.id,
      changedFields: ['status', 'archived_at'],
    });
    ctx.emit({
      name: 'analytics_tracking_plan.archived',
      targetType: 'analytics_tracking_plan',
      targetId: row.id,
      data: plan,
    });
    return { body: { tracking_plan: plan } };
  },
});
