import type { Kysely } from 'kysely';
import { defineOperation, type OperationDefinition } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { DEFAULT_PAGE_SIZE, decodeCursor, encodeCursor, pageRequest } from '../../core/pagination.ts';
import { Strict } from '../../core/schema.ts';
import type { DB } from '../../db/tables.ts';
import { getAppEventObject } from './app-event-object.ts';
import { getAppEventTimeseries } from './app-event-timeseries.ts';
import { iso, resolveWindow, type Window, type WindowName, windowText } from './app-event-window.ts';
import { uniqueActors } from './object-actors-store.ts';
import { GroupedBody, GroupedInput } from './object-analytics-schemas.ts';
import {
  type ObjectFilters,
  objectKeyText,
  type RankAfter,
  type RankSort,
  rankObjects,
} from './object-analytics-store.ts';
import { countsByEventName } from './object-page-store.ts';
import { rankFromSnapshot } from './object-window-read.ts';

// Object Analytics: the grouped view of application events per object (app + object_type + object_id),
// the timeseries and one object's drill-down. Heavy reads: they aggregate rollups over a window.

const NAME = 'query_object_analytics';
const COUNT = /^\d{1,15}$/;

/**
 * The cursor holds the window it was issued for (a relative window would slide between pages) and the last
 * row's sort value and object key; it is bound to the filters like every cursor.
 */
function readCursor(filters: Record<string, unknown>, cursor: string, sort: 'events' | 'last_seen') {
  const shape = [
    'date-time',
    'date-time',
    sort === 'events' ? 'string' : 'date-time',
    'string',
    'string',
    'string',
  ] as const;
  const [from, to, value, app, objectType, objectId] = decodeCursor(NAME, filters, cursor, shape) as string[];
  if (sort === 'events' && !COUNT.test(value!)) {
    throw validationFailed([{ field: 'cursor', message: 'is not a cursor this service issued' }]);
  }
  const window: Window = { from: Date.parse(from!), to: Date.parse(to!) };
  const after: RankAfter = {
    value: sort === 'events' ? Number(value) : value!,
    app: app!,
    object_type: objectType!,
    object_id: objectId!,
  };
  return { window, after };
}

/**
 * One page of grouped rows over a resolved window: `limit` objects (ranked holds one more when another page
 * exists). Insight views with an Object Analytics source refresh through it.
 */
export async function objectAnalyticsRows(
  db: Kysely<DB>,
  workspaceId: string,
  filters: ObjectFilters & { window?: WindowName },
  window: Window,
  options: { sort: RankSort; after?: RankAfter; limit: number },
) {
  const { sort, after, limit } = options;
  const text = windowText(window);
  // A 7d/30d/90d window reads the hourly snapshot plus the hours at its edges (exact); others group rollups.
  const ranked =
    (await rankFromSnapshot(db, workspaceId, filters, window, sort, after, limit + 1)) ??
    (await rankObjects(db, workspaceId, filters, text, sort, after, limit + 1));
  const page = ranked.slice(0, limit);
  const [counts, actors] = await Promise.all([
    countsByEventName(db, workspaceId, page, filters.event_name, text),
    uniqueActors(db, workspaceId, page, text),
  ]);
  const objects = page.map((row) => {
    const byName = counts.get(objectKeyText(row)) ?? [];
    const firstSeen = byName.reduce<string | undefined>(
      (first, { first_seen }) => (first === undefined || first_seen < first ? first_seen : first),
      undefined,
    );
    return {
      app: row.app,
      object_type: row.object_type,
      object_id: row.object_id,
      events: row.events,
      unique_actors: actors.get(objectKeyText(row)) ?? 0,
      first_seen: firstSeen ?? row.last_seen,
      last_seen: row.last_seen,
      top_events: byName.slice(0, 5).map(({ event_name, events }) => ({ event_name, events })),
    };
  });
  return { objects, ranked };
}

export const queryObjectAnalytics = defineOperation({
  name: NAME,
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  heavy: true,
  summary: 'Object Analytics: application events grouped by object',
  description:
    'Application events grouped by app + object_type + object_id over a window (default 7d, whole UTC ' +
    'hours): events, unique actors, first/last seen and the top 5 event names per object. Sorted by events ' +
    'or last_seen, descending. Drill into one object with get_app_event_object.',
  input: Strict(GroupedInput),
  rest: { method: 'GET', path: '/v1/insights/app-events' },
  responseKey: 'objects',
  response: GroupedBody,
  handler: async (ctx, input) => {
    const request = pageRequest(NAME, input);
    const sort = input.sort ?? 'events';
    const cursor = request.cursor ? readCursor(request.filters, request.cursor, sort) : undefined;
    const window = cursor?.window ?? resolveWindow(input, ctx.now);
    const text = windowText(window);
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    const { objects, ranked } = await objectAnalyticsRows(ctx.db, ctx.workspaceId, input, window, {
      sort,
      after: cursor?.after,
      limit,
    });
    const page = ranked.slice(0, limit);
    const body: Record<string, unknown> = { objects, from: iso(window.from), to: iso(window.to) };
    if (ranked.length > limit) {
      const last = page[page.length - 1]!;
      const value = sort === 'events' ? String(last.events) : last.last_seen;
      body.next_cursor = encodeCursor(NAME, request.filters, [
        text.from,
        text.to,
        value,
        last.app,
        last.object_type,
        last.object_id,
      ]);
    }
    return { body };
  },
});

export const objectAnalyticsOperations: OperationDefinition[] = [
  queryObjectAnalytics,
  getAppEventTimeseries,
  getAppEventObject,
];
