import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
  heavyFilters,
  listBody,
  MAX_PAGE_SIZE,
  pageInput,
  pageRequest,
} from '../../core/pagination.ts';
import { pageBody } from '../../core/response-schema.ts';
import { Strict } from '../../core/schema.ts';
import { CalendarEventOccurrenceSchema, CalendarEventSchema } from './calendar-schemas.ts';
import {
  type EventFilters,
  listEvents,
  seriesInWindow,
  singleEventsInWindow,
  timingOf,
  toOccurrence,
} from './calendar-store.ts';
import type { CalendarEventsTable } from './calendar-tables.ts';
import { eventStatus, relatedType } from './event-schema.ts';
import { occurrencesBetween } from './recurrence.ts';
import { DAY } from './zoned-time.ts';

const MAX_WINDOW_DAYS = 366;

interface WindowInput extends EventFilters {
  from: string;
  to: string;
  limit?: number;
  cursor?: string;
}

/**
 * Occurrences overlapping [from, to) ordered by start then event ID, keyset-paged on that pair. Single
 * events come from SQL already ordered and limited; recurring series reaching into the window are loaded
 * and each expanded only as far as the page needs.
 */
async function listOccurrences(ctx: OperationContext, input: WindowInput) {
  const request = pageRequest('list_calendar_events', input as unknown as Record<string, unknown>);
  const limit = Math.min(input.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const from = Date.parse(input.from);
  const to = Date.parse(input.to);
  let after: { startsAt: number; eventId: string } | undefined;
  if (input.cursor) {
    const [iso, eventId] = decodeCursor(request.operation, request.filters, input.cursor, [
      'date-time',
      'string',
    ]);
    after = { startsAt: Date.parse(iso as string), eventId: eventId as string };
  }
  const fromIso = new Date(from).toISOString();
  const toIso = new Date(to).toISOString();
  const window = { from: fromIso, to: toIso };
  const singleRows = await singleEventsInWindow(ctx.db, ctx.workspaceId, input, {
    ...window,
    after: after && { startsAt: new Date(after.startsAt).toISOString(), eventId: after.eventId },
    limit: limit + 1,
  });
  const seriesRows = await seriesInWindow(ctx.db, ctx.workspaceId, input, window);

  const found: { row: CalendarEventsTable; occurrence: ReturnType<typeof occurrencesBetween>[number] }[] = [];
  for (const row of singleRows) {
    for (const occurrence of occurrencesBetween(timingOf(row), from, to)) found.push({ row, occurrence });
  }
  for (const row of seriesRows) {
    // Occurrences starting at the cursor's instant may still follow it (a higher event ID): start from just before.
    const since = after ? (row.id > after.eventId ? after.startsAt - 1 : after.startsAt) : undefined;
    for (const occurrence of occurrencesBetween(timingOf(row), from, to, since, limit + 1))
      found.push({ row, occurrence });
  }
  found.sort(
    (a, b) =>
      a.occurrence.startsAt - b.occurrence.startsAt ||
      (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0),
  );
  const page = found.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor =
    found.length > limit && last
      ? encodeCursor(request.operation, request.filters, [
          new Date(last.occurrence.startsAt).toISOString(),
          last.row.id,
        ])
      : undefined;
  return { items: page.map(({ row, occurrence }) => toOccurrence(row, occurrence)), next_cursor: nextCursor };
}

export const listEventsOperation = defineOperation({
  name: 'list_calendar_events',
  module: 'calendar',
  scopes: ['calendar:read'],
  kind: 'read',
  summary: 'List calendar events or their occurrences',
  description:
    "Without from/to, lists events, newest first. With a window (at most 366 days), lists the occurrences overlapping it in start order, recurring events expanded, each with its event_id and own starts_at/ends_at in the event's zone. query matches title, description and location.",
  input: Strict({
    calendar_id: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(eventStatus()),
    related_resource_type: Type.Optional(relatedType),
    related_resource_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive.' })),
    to: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Exclusive; at most 366 days after from.',
      }),
    ),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/calendar/events' },
  heavy: heavyFilters({
    indexed: ['calendar_id'],
    scans: ['status', 'related_resource_type', 'related_resource_id', 'from', 'to'],
  }),
  responseKey: 'calendar_events',
  response: pageBody('calendar_events', Type.Union([CalendarEventSchema, CalendarEventOccurrenceSchema])),
  handler: async (ctx, input) => {
    if ((input.from === undefined) !== (input.to === undefined)) {
      const missing = input.from === undefined ? 'from' : 'to';
      throw validationFailed([
        { field: missing, message: 'is required with from and to: send both for a time window' },
      ]);
    }
    if (input.from !== undefined && input.to !== undefined) {
      const span = Date.parse(input.to) - Date.parse(input.from);
      if (span <= 0) throw validationFailed([{ field: 'to', message: 'must be after from' }]);
      if (span > MAX_WINDOW_DAYS * DAY)
        throw validationFailed([{ field: 'to', message: 'must be at most 366 days after from' }]);
      const page = await listOccurrences(ctx, input as WindowInput);
      return { body: listBody('calendar_events', page) };
    }
    const page = await listEvents(
      ctx.db,
      ctx.workspaceId,
      input as EventFilters,
      pageRequest('list_calendar_events', input),
    );
    return { body: listBody('calendar_events', page) };
  },
});
