// Shapes of the Object Analytics reads (the grouped view, the timeseries, one object's drill-down), declared
// once: inputs and bodies; OpenAPI, MCP and the response checks derive from them.
import { Type } from '@sinclair/typebox';
import { pageInput } from '../../core/pagination.ts';
import {
  AnyJson,
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
} from '../../core/resource-schema.ts';
import { WINDOW_NAMES } from './app-event-window.ts';

const key = (example: string, description: string) =>
  Type.String({ minLength: 1, maxLength: 200, examples: [example], description });

/** The object keys as filters (exact matches). */
export const objectFilters = {
  app: Type.Optional(key('shop', 'Only this app.')),
  object_type: Type.Optional(key('order', 'Only this object type.')),
  object_id: Type.Optional(key('ord_1042', 'Only this object ID.')),
  event_name: Type.Optional(key('order.created', 'Count only this event name.')),
};

/** A window: `window`, or `from` (and `to`); both forms at once is validation_failed. */
export const windowInputs = {
  window: Type.Optional(
    Enum(WINDOW_NAMES, {
      description: 'Relative window ending now (default 7d); not with from/to. Whole UTC hours.',
    }),
  ),
  from: Type.Optional(
    Type.String({ format: 'date-time', description: 'Window start, rounded down to the UTC hour.' }),
  ),
  to: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Window end (exclusive), rounded up to the UTC hour; default now. Needs from.',
    }),
  ),
};

export const GroupedInput = {
  ...objectFilters,
  ...windowInputs,
  sort: Type.Optional(
    Enum(['events', 'last_seen'] as const, { description: 'events (default) or last_seen, descending.' }),
  ),
  ...pageInput,
};

const resolvedWindow = {
  from: Timestamp('Start of the window used (a whole UTC hour).'),
  to: Timestamp('End of the window used, exclusive.'),
};

const EventCount = Shape({
  event_name: Text('order.created'),
  events: Type.Integer({ examples: [310] }),
});

export const ObjectAnalyticsRowSchema = Resource('ObjectAnalyticsRow', {
  app: Text('shop'),
  object_type: Text('order'),
  object_id: Text('ord_1042'),
  events: Type.Integer({ examples: [412], description: 'Events in the window.' }),
  unique_actors: Type.Integer({
    examples: [37],
    description: 'Distinct user_id (else anonymous_id) over the UTC days the window touches; exact.',
  }),
  first_seen: Timestamp(),
  last_seen: Timestamp(),
  top_events: Type.Array(EventCount, {
    maxItems: 5,
    description: 'Up to 5 event names, most frequent first.',
  }),
});

export const GroupedBody = Type.Object(
  {
    objects: Type.Array(ObjectAnalyticsRowSchema),
    ...resolvedWindow,
    next_cursor: Type.Optional(
      Type.String({ description: 'Present only when another page exists: send it back as cursor.' }),
    ),
  },
  { additionalProperties: false },
);

export const TimeseriesInput = {
  ...objectFilters,
  ...windowInputs,
  interval: Type.Optional(
    Enum(['hour', 'day'] as const, { description: 'Bucket size; default hour up to 48 h, else day.' }),
  ),
  timezone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      examples: ['America/New_York'],
      description: 'IANA zone of day buckets (local midnight, DST included); default UTC.',
    }),
  ),
};

export const TimeseriesBody = Type.Object(
  {
    points: Type.Array(
      Shape({
        start: Timestamp('Bucket start: a UTC hour, or local midnight for day buckets.'),
        events: Type.Integer({ examples: [58] }),
      }),
    ),
    interval: Enum(['hour', 'day'] as const),
    timezone: Text('America/New_York'),
    ...resolvedWindow,
  },
  { additionalProperties: false },
);

export const ObjectInput = {
  app: key('shop', 'App of the object.'),
  object_type: key('order', 'Type of the object.'),
  object_id: key('ord_1042', 'ID of the object.'),
  event_name: objectFilters.event_name,
  ...windowInputs,
  ...pageInput,
};

export const AppEventSchema = Resource('AppEvent', {
  id: RecordId('aev'),
  event_id: NullableText('5f0c6e1e-8d1e-4a43-9f57-0b1f1c2a9e11', "The client's event_id."),
  event_name: Text('order.created'),
  occurred_at: Timestamp(),
  received_at: Timestamp(),
  properties: AnyJson('The properties as sent (an object).'),
  user_id: NullableText('usr_42'),
  anonymous_id: NullableText('anon_7f3a'),
  session_id: NullableText('ses_01'),
  page_url: NullableText('https://shop.example.com/checkout'),
  referrer: NullableText('https://www.example.org/'),
  locale: NullableText('en-GB'),
  timezone: NullableText('Europe/London'),
  warnings: Nullable(Type.Array(Shape({ field: Type.String(), message: Type.String() })), {
    description: 'Tracking-plan warnings (validation mode warn), else null.',
  }),
});

export const ObjectBody = Type.Object(
  {
    object: Shape({
      app: Text('shop'),
      object_type: Text('order'),
      object_id: Text('ord_1042'),
      totals: Shape({
        events: Type.Integer({ examples: [412] }),
        unique_actors: Type.Integer({ examples: [37] }),
        first_seen: NullableTimestamp(),
        last_seen: NullableTimestamp(),
      }),
      by_event: Type.Array(EventCount, {
        description: 'Every event name in the window, most frequent first.',
      }),
    }),
    events: Type.Array(AppEventSchema, { description: 'Raw events in the window, newest first.' }),
    ...resolvedWindow,
    next_cursor: Type.Optional(
      Type.String({ description: 'Present only when more events exist: send it back as cursor.' }),
    ),
  },
  { additionalProperties: false },
);
