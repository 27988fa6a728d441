// The analytics governance resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';

/**
 * An application event's name as ingest takes it: 1 to 200 printable characters, so `pageview` and
 * `$pageview` are names too. Not printable: control characters, line and paragraph separators,
 * bidirectional formatting characters (they make a name display as another) and unpaired surrogates.
 */
export const EVENT_NAME_TEXT =
  '^[^\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]+$';

/**
 * The dotted style the specification suggests (resource.action, lower case): the only names an event
 * definition takes, so the only names a tracking plan can hold a workspace to under warn or enforce.
 */
export const EVENT_NAME_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$';

export const AnalyticsPropertySchema = Resource('AnalyticsProperty', {
  id: RecordId('aprop'),
  name: Text('plan_tier'),
  type: Enum(['string', 'number', 'integer', 'boolean', 'datetime', 'object', 'array'] as const),
  description: NullableText('The plan the user is on.'),
  enum: Nullable(
    Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), { examples: [['free', 'pro']] }),
  ),
  pattern: NullableText('^[a-z]+$'),
  ...timestamps,
});
export type AnalyticsProperty = Static<typeof AnalyticsPropertySchema>;

export const AnalyticsEventSchema = Resource('AnalyticsEvent', {
  id: RecordId('aevt'),
  app: Text('web'),
  name: Text('checkout.completed'),
  description: NullableText('A purchase went through.'),
  properties: Type.Array(Shape({ name: Text('plan_tier'), required: Type.Boolean() })),
  status: Enum(['active', 'deprecated'] as const),
  ...timestamps,
});
export type AnalyticsEvent = Static<typeof AnalyticsEventSchema>;

export const AnalyticsTrackingPlanSchema = Resource('AnalyticsTrackingPlan', {
  id: RecordId('atp'),
  name: Text('Web launch plan'),
  app: Text('web'),
  description: NullableText('Events the web app sends from the launch on.'),
  events: Type.Array(Type.String(), { examples: [['checkout.completed', 'signup.completed']] }),
  status: Enum(['draft', 'active', 'archived'] as const),
  ...timestamps,
  archived_at: NullableTimestamp(),
});
export type AnalyticsTrackingPlan = Static<typeof AnalyticsTrackingPlanSchema>;

const problem = Shape({ field: Text('properties.plan_tier'), message: Text('must be one of: free, pro') });

/** validate_event's body: the verdict, each problem, and what it was checked against. */
export const EventValidationSchema = Type.Object(
  {
    valid: Type.Boolean(),
    errors: Type.Array(problem),
    warnings: Type.Array(problem),
    matched_event: Nullable(AnalyticsEventSchema),
    tracking_plan_id: Nullable(RecordId('atp')),
  },
  { additionalProperties: false },
);
