import type { ModuleDefinition } from '../../core/module.ts';
import { defineEvent, eventRecord, listEvents } from './event-definitions.ts';
import {
  AnalyticsEventSchema,
  AnalyticsPropertySchema,
  AnalyticsTrackingPlanSchema,
} from './governance-schemas.ts';
import type { GovernanceTables } from './governance-tables.ts';
import { defineProperty, propertyRecord } from './properties.ts';
import {
  archiveTrackingPlan,
  createTrackingPlan,
  listTrackingPlans,
  planRecord,
  updateTrackingPlan,
} from './tracking-plans.ts';
import { validateEvent } from './validate-event.ts';

const identity = { name: 'analytics_governance', scopes: ['analytics:read', 'analytics:write'] } as const;

export const analyticsGovernanceModule: ModuleDefinition<typeof identity, GovernanceTables> = {
  ...identity,
  operations: [
    defineEvent,
    listEvents,
    defineProperty,
    validateEvent,
    createTrackingPlan,
    listTrackingPlans,
    updateTrackingPlan,
    archiveTrackingPlan,
  ],
  recordTypes: [propertyRecord, eventRecord, planRecord],
  events: [
    {
      name: 'analytics_property.defined',
      description: 'A property definition was created or changed; data is the property.',
      schema: AnalyticsPropertySchema,
    },
    {
      name: 'analytics_event.defined',
      description: 'An application event definition was created or changed; data is the definition.',
      schema: AnalyticsEventSchema,
    },
    {
      name: 'analytics_tracking_plan.created',
      description: 'A tracking plan was created; data is the plan.',
      schema: AnalyticsTrackingPlanSchema,
    },
    {
      name: 'analytics_tracking_plan.updated',
      description: 'A tracking plan changed (name, events, status); data is the plan.',
      schema: AnalyticsTrackingPlanSchema,
    },
    {
      name: 'analytics_tracking_plan.archived',
      description: 'A tracking plan was archived; data is the plan.',
      schema: AnalyticsTrackingPlanSchema,
    },
  ],
};
