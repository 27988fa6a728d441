import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, pageRequest } from '../../core/pagination.ts';
import { Strict } from '../../core/schema.ts';
import { iso, resolveWindow, type Window, windowText } from './app-event-window.ts';
import { uniqueActors } from './object-actors-store.ts';
import { ObjectBody, ObjectInput } from './object-analytics-schemas.ts';
import { type EventAfter, objectEvents, objectIsKnown, objectKeyText } from './object-analytics-store.ts';
import { countsByEventName } from './object-page-store.ts';

// One object's drill-down: totals and counts per event name from the daily and hourly rollups, its raw events newest first.

const NAME = 'get_app_event_object';

/** The cursor holds its window (a relative one would slide between pages) and the last event's key. */
function readCursor(filters: Record<string, unknown>, cursor: string) {
  const shape = ['date-time', 'date-time', 'date-time', 'string'] as const;
  const [from, to, occurredAt, id] = decodeCursor(NAME, filters, cursor, shape) as string[];
  const window: Window = { from: Date.parse(from!), to: Date.parse(to!) };
  const after: EventAfter = { occurred_at: occurredAt!, id: id! };
  return { window, after };
}

export const getAppEventObject = defineOperation({
  name: NAME,
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  heavy: true,
  summary: "One object's application events",
  description:
    'Drill-down of one object of query_object_analytics over a window (default 7d): totals, counts per ' +
    'event name, and its raw events newest first with properties (paginated; raw events are kept 90 days ' +
    'by default, counts 2 years). 404 when the object never had an event.',
  input: Strict(ObjectInput),
  rest: { method: 'GET', path: '/v1/insights/app-events/objects/{app}/{object_type}/{object_id}' },
  responseKey: 'object',
  response: ObjectBody,
  handler: async (ctx, input) => {
    const request = pageRequest(NAME, input);
    const cursor = request.cursor ? readCursor(request.filters, request.cursor) : undefined;
    const window = cursor?.window ?? resolveWindow(input, ctx.now);
    const text = windowText(window);
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    const key = { app: input.app, object_type: input.object_type, object_id: input.object_id };
    const [counts, actors, rows] = await Promise.all([
      countsByEventName(ctx.db, ctx.workspaceId, [key], input.event_name, text),
      uniqueActors(ctx.db, ctx.workspaceId, [key], text),
      objectEvents(ctx.db, ctx.workspaceId, key, input.event_name, text, cursor?.after, limit + 1),
    ]);
    const byEvent = counts.get(objectKeyText(key)) ?? [];
    // Nothing in the window: zeros for an object that had events before, 404 for one that never had any.
    if (!byEvent.length && !(await objectIsKnown(ctx.db, ctx.workspaceId, key))) throw notFound('object');
    const seen = byEvent.flatMap((row) => [row.first_seen, row.last_seen]).sort();
    const events = rows.slice(0, limit);
    const body: Record<string, unknown> = {
      object: {
        ...key,
        totals: {
          events: byEvent.reduce((sum, row) => sum + row.events, 0),
          unique_actors: actors.get(objectKeyText(key)) ?? 0,
          first_seen: seen[0] ?? null,
          last_seen: seen[seen.length - 1] ?? null,
        },
        by_event: byEvent.map(({ event_name, events }) => ({ event_name, events })),
      },
      events,
      from: iso(window.from),
      to: iso(window.to),
    };
    if (rows.length > limit) {
      const last = events[events.length - 1]!;
      body.next_cursor = encodeCursor(NAME, request.filters, [text.from, text.to, last.occurred_at, last.id]);
    }
    return { body };
  },
});
