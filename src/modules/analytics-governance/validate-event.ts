import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { MapOf, Strict } from '../../core/schema.ts';
import { app } from './event-definitions.ts';
import { EventValidationSchema } from './governance-schemas.ts';
import {
  activePlan,
  eventsByName,
  findPlan,
  propertiesByName,
  toEventDefinition,
} from './governance-store.ts';
import { compiled, describeErrors, eventSchema } from './property-schema.ts';

export const validateEvent = defineOperation({
  name: 'validate_event',
  module: 'analytics_governance',
  scopes: ['analytics:read'],
  kind: 'read',
  summary: 'Validate an application event against its definition and tracking plan',
  description:
    'Checks one application event (app, event_name, object_type, object_id, properties) against the event ' +
    "definitions of its app and the app's active tracking plan (or tracking_plan_id). Reports each problem " +
    'in errors: unknown event name, event not in the plan, missing required property, wrong type, value ' +
    'outside the enum or pattern, property the definition does not know. Stores nothing.',
  input: Strict({
    app,
    event_name: Type.String({ minLength: 1, maxLength: 200 }),
    object_type: Type.Optional(Type.String({ maxLength: 200 })),
    object_id: Type.Optional(Type.String({ maxLength: 500 })),
    properties: Type.Optional(
      MapOf(Type.Unknown(), { description: "The event's properties.", examples: [{ plan_tier: 'pro' }] }),
    ),
    context: Type.Optional(MapOf(Type.Unknown(), { description: 'User or session context; not validated.' })),
    tracking_plan_id: Type.Optional(
      Type.String({ minLength: 1, description: 'Validate against this plan instead of the active one.' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/analytics/events/validate' },
  responseKey: 'valid',
  response: EventValidationSchema,
  handler: async (ctx, input) => {
    const errors: { field: string; message: string }[] = [];
    const warnings: { field: string; message: string }[] = [];
    let plan = input.tracking_plan_id
      ? await findPlan(ctx.db, ctx.workspaceId, input.tracking_plan_id)
      : undefined;
    if (input.tracking_plan_id && (!plan || plan.archived_at)) throw notFound('tracking plan');
    if (plan && plan.app !== input.app)
      errors.push({ field: 'app', message: `is not the tracking plan's app (${plan.app})` });
    plan ??= await activePlan(ctx.db, ctx.workspaceId, input.app);

    const definition = (await eventsByName(ctx.db, ctx.workspaceId, input.app, [input.event_name])).get(
      input.event_name,
    );
    if (!definition) {
      errors.push({ field: 'event_name', message: `is not a defined event of app ${input.app}` });
    } else {
      if (plan && !(JSON.parse(plan.events) as string[]).includes(input.event_name)) {
        errors.push({ field: 'event_name', message: 'is not in the tracking plan' });
      }
      if (definition.status === 'deprecated')
        warnings.push({ field: 'event_name', message: 'is deprecated' });
      const event = toEventDefinition(definition);
      const properties = await propertiesByName(
        ctx.db,
        ctx.workspaceId,
        event.properties.map((p) => p.name),
      );
      const validate = compiled(eventSchema(event.properties, properties));
      if (!validate(input.properties ?? {})) errors.push(...describeErrors(validate.errors));
    }
    return {
      body: {
        valid: errors.length === 0,
        errors,
        warnings,
        matched_event: definition ? toEventDefinition(definition) : null,
        tracking_plan_id: plan?.id ?? null,
      },
    };
  },
});
