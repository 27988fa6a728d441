import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { MapOf, Strict } from '../../core/schema.ts';
import { checkEvents } from './event-checker.ts';
import { app } from './event-definitions.ts';
import { EventValidationSchema } from './governance-schemas.ts';
import { findPlan, toEventDefinition } from './governance-store.ts';

export const validateEvent = defineOperation({
  name: 'validate_event',
  module: 'analytics_governance',
  scopes: ['analytics:read'],
  kind: 'read',
  summary: 'Validate an application event against its definition and tracking plan',
  description:
    "Checks one application event against its app's event definitions and active tracking plan (or tracking_plan_id). errors lists each problem: unknown event, not in the plan, missing required property, wrong type, value outside enum or pattern, unknown property. Stores nothing.",
  input: Strict({
    app,
    event_name: Type.String({ minLength: 1, maxLength: 200 }),
    object_type: Type.Optional(Type.String({ maxLength: 200 })),
    object_id: Type.Optional(Type.String({ maxLength: 500 })),
    properties: Type.Optional(MapOf(Type.Unknown(), { examples: [{ plan_tier: 'pro' }] })),
    context: Type.Optional(MapOf(Type.Unknown(), { description: 'Not validated.' })),
    tracking_plan_id: Type.Optional(Type.String({ minLength: 1 })),
  }),
  rest: { method: 'POST', path: '/v1/analytics/events/validate' },
  responseKey: 'valid',
  response: EventValidationSchema,
  handler: async (ctx, input) => {
    const chosen = input.tracking_plan_id
      ? await findPlan(ctx.db, ctx.workspaceId, input.tracking_plan_id)
      : undefined;
    if (input.tracking_plan_id && (!chosen || chosen.archived_at)) throw notFound('tracking plan');
    const [check] = await checkEvents(ctx.db, ctx.workspaceId, [input], chosen);
    const { definition, plan, warnings } = check!;
    const errors =
      chosen && chosen.app !== input.app
        ? [{ field: 'app', message: `is not the tracking plan's app (${chosen.app})` }, ...check!.errors]
        : check!.errors;
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
