import { defineOperation } from '../../core/define-operation.ts';
import { Strict } from '../../core/schema.ts';
import { buckets, defaultInterval, iso, resolveWindow, timeZoneOf, windowText } from './app-event-window.ts';
import { TimeseriesBody, TimeseriesInput } from './object-analytics-schemas.ts';
import { hourlyCounts } from './object-analytics-store.ts';

// Event counts per hour or local day: the hourly rollups of the window summed into zero-filled buckets.

export const getAppEventTimeseries = defineOperation({
  name: 'get_app_event_timeseries',
  module: 'product_analytics_bi',
  scopes: ['analytics:read'],
  kind: 'read',
  extension: true,
  heavy: true,
  summary: 'Application event counts over time',
  description:
    'Event counts per hour or day for the same filters and window as query_object_analytics, zero-filled. ' +
    'Day buckets start at local midnight in timezone (IANA, DST included; default UTC). At most 2,200 points.',
  input: Strict(TimeseriesInput),
  rest: { method: 'GET', path: '/v1/insights/app-events/timeseries' },
  responseKey: 'points',
  response: TimeseriesBody,
  handler: async (ctx, input) => {
    const window = resolveWindow(input, ctx.now);
    const timezone = timeZoneOf(input.timezone);
    const interval = input.interval ?? defaultInterval(window);
    // Checked before the query: a window with too many buckets is refused without reading anything.
    const { starts, indexOf } = buckets(window, interval, timezone);
    const counts = new Array<number>(starts.length).fill(0);
    for (const { hour, events } of await hourlyCounts(ctx.db, ctx.workspaceId, input, windowText(window))) {
      const index = indexOf(Date.parse(hour));
      if (index >= 0 && index < counts.length) counts[index]! += events;
    }
    const points = starts.map((start, i) => ({ start: iso(start), events: counts[i]! }));
    return { body: { points, interval, timezone, from: iso(window.from), to: iso(window.to) } };
  },
});
