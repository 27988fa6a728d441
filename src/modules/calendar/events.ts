import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { checkRelatedRecord } from '../../core/related-record.ts';
import { Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { CalendarEventSchema } from './calendar-schemas.ts';
import { findCalendar, findEvent, insertEvent, toCalendarEvent, updateEventRow } from './calendar-store.ts';
import type { CalendarEventsTable, EventStatus } from './calendar-tables.ts';
import { type AttendeeInput, normalizeAttendees, normalizeTiming, type TimingDraft } from './event-input.ts';
import { eventFields, eventStatus } from './event-schema.ts';

export const calendarEventRecord = defineRecordType({
  type: 'calendar_event',
  module: 'calendar',
  table: 'calendar_events',
  collection: '/v1/calendar/events',
  key: 'calendar_event',
  readScope: 'calendar:read',
  schema: CalendarEventSchema,
  toResource: toCalendarEvent,
});

async function requireCalendar(ctx: OperationContext, id: string) {
  const calendar = await findCalendar(ctx.db, ctx.workspaceId, id);
  if (!calendar) throw notFound('calendar');
  return calendar;
}

export const createCalendarEvent = defineOperation({
  name: 'create_calendar_event',
  module: 'calendar',
  scopes: ['calendar:write'],
  kind: 'create',
  example: { starts_at: '2026-12-01T09:00:00.000Z', ends_at: '2026-12-01T10:00:00.000Z' },
  creates: 'calendar_event',
  summary: 'Create a calendar event',
  description:
    "Creates an event in a calendar: timed (starts_at, ends_at) or all-day (all_day, start_date, end_date), in its own IANA timezone (default the calendar's), optionally recurring (an RRULE in recurrence, minus excluded_dates), with attendees and a related record (must exist). Emits calendar_event.created.",
  input: Strict({
    calendar_id: Type.String({ minLength: 1 }),
    title: eventFields.title,
    description: Type.Optional(eventFields.description),
    location: Type.Optional(eventFields.location),
    all_day: Type.Optional(eventFields.all_day),
    starts_at: Type.Optional(eventFields.starts_at),
    ends_at: Type.Optional(eventFields.ends_at),
    start_date: Type.Optional(eventFields.start_date),
    end_date: Type.Optional(eventFields.end_date),
    timezone: Type.Optional(eventFields.timezone),
    recurrence: Type.Optional(eventFields.recurrence),
    excluded_dates: Type.Optional(eventFields.excluded_dates),
    attendees: Type.Optional(eventFields.attendees),
    status: Type.Optional(eventStatus('Default confirmed.')),
    related_resource_type: Type.Optional(eventFields.related_resource_type),
    related_resource_id: Type.Optional(eventFields.related_resource_id),
  }),
  rest: { method: 'POST', path: '/v1/calendar/events' },
  responseKey: 'calendar_event',
  handler: async (ctx, input) => {
    const calendar = await requireCalendar(ctx, input.calendar_id);
    const timing = normalizeTiming({
      ...input,
      all_day: input.all_day ?? false,
      timezone: input.timezone ?? calendar.timezone,
    });
    await checkRelatedRecord(ctx, input);
    const row: CalendarEventsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('cev'),
      calendar_id: calendar.id,
      title: input.title,
      description: input.description ?? null,
      location: input.location ?? null,
      ...timing,
      attendees: JSON.stringify(await normalizeAttendees(ctx, (input.attendees ?? []) as AttendeeInput[])),
      status: (input.status ?? 'confirmed') as EventStatus,
      related_resource_type: input.related_resource_type ?? null,
      related_resource_id: input.related_resource_id ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertEvent(ctx.db, row);
    const event = toCalendarEvent(row);
    ctx.audit({ targetType: 'calendar_event', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'calendar_event.created', targetType: 'calendar_event', targetId: row.id, data: event });
    return { body: { calendar_event: event }, createdId: row.id };
  },
});

const TIMING = [
  'all_day',
  'starts_at',
  'ends_at',
  'start_date',
  'end_date',
  'timezone',
  'recurrence',
  'excluded_dates',
] as const;
const PLAIN = [
  'calendar_id',
  'title',
  'description',
  'location',
  'status',
  'related_resource_type',
  'related_resource_id',
] as const;

/** The event's current timing as an update draft, with the sent fields applied. */
function draftFor(row: CalendarEventsTable, input: Record<string, unknown>): TimingDraft {
  const allDay = (input.all_day as boolean | undefined) ?? Boolean(Number(row.all_day));
  const switched = allDay !== Boolean(Number(row.all_day));
  const current: TimingDraft = {
    all_day: allDay,
    // Switching between timed and all-day drops the other kind's fields unless they are sent. The stored
    // UTC instants are used as they are: a local time with a local-mean-time offset (-00:44:30) does not
    // parse back.
    starts_at: switched || allDay ? undefined : row.starts_at,
    ends_at: switched || allDay ? undefined : row.ends_at,
    start_date: switched ? undefined : row.start_date,
    end_date: switched ? undefined : row.end_date,
    timezone: row.timezone,
    recurrence: row.recurrence,
    excluded_dates: JSON.parse(row.excluded_dates),
  };
  for (const field of TIMING) if (input[field] !== undefined) (current as any)[field] = input[field];
  // A new start alone moves the event and keeps its length.
  if (!switched && !allDay && input.starts_at !== undefined && input.ends_at === undefined) {
    const length = Date.parse(row.ends_at) - Date.parse(row.starts_at);
    current.ends_at = new Date(Date.parse(input.starts_at as string) + length).toISOString();
  }
  if (!switched && allDay && input.start_date !== undefined && input.end_date === undefined) {
    const span = Date.parse(`${row.end_date}T00:00:00Z`) - Date.parse(`${row.start_date}T00:00:00Z`);
    current.end_date = new Date(Date.parse(`${input.start_date}T00:00:00Z`) + span)
      .toISOString()
      .slice(0, 10);
  }
  if (input.recurrence === null)
    current.excluded_dates = (input.excluded_dates as string[] | undefined) ?? [];
  return current;
}

export const updateCalendarEvent = defineOperation({
  name: 'update_calendar_event',
  module: 'calendar',
  scopes: ['calendar:write'],
  kind: 'update',
  summary: 'Update a calendar event',
  description:
    'Changes an event, validated like a create (attendees and excluded_dates are replaced; calendar_id moves it). Changing timezone keeps the instants; removing recurrence drops excluded_dates. Edits apply to the whole series. Emits calendar_event.canceled when it becomes canceled, otherwise calendar_event.updated.',
  input: Strict({
    event_id: Type.String({ minLength: 1 }),
    calendar_id: Type.Optional(Type.String({ minLength: 1 })),
    title: Type.Optional(eventFields.title),
    description: Type.Optional(Nullable(eventFields.description)),
    location: Type.Optional(Nullable(eventFields.location)),
    all_day: Type.Optional(eventFields.all_day),
    starts_at: Type.Optional(eventFields.starts_at),
    ends_at: Type.Optional(eventFields.ends_at),
    start_date: Type.Optional(eventFields.start_date),
    end_date: Type.Optional(eventFields.end_date),
    timezone: Type.Optional(eventFields.timezone),
    recurrence: Type.Optional(Nullable(eventFields.recurrence)),
    excluded_dates: Type.Optional(eventFields.excluded_dates),
    attendees: Type.Optional(eventFields.attendees),
    status: Type.Optional(eventStatus()),
    related_resource_type: Type.Optional(Nullable(eventFields.related_resource_type)),
    related_resource_id: Type.Optional(Nullable(eventFields.related_resource_id)),
  }),
  rest: { method: 'PATCH', path: '/v1/calendar/events/{event_id}' },
  responseKey: 'calendar_event',
  handler: async (ctx, rawInput) => {
    const input = rawInput as Record<string, unknown> & { event_id: string };
    requireSomeField(input, [...TIMING, ...PLAIN, 'attendees']);
    const row = await findEvent(ctx.db, ctx.workspaceId, input.event_id);
    if (!row) throw notFound('calendar event');
    if (typeof input.calendar_id === 'string') await requireCalendar(ctx, input.calendar_id);
    const relatedCleared = input.related_resource_type === null || input.related_resource_id === null;
    if (relatedCleared && (input.related_resource_type !== null || input.related_resource_id !== null)) {
      throw validationFailed([
        {
          field: 'related_resource_id',
          message: 'clear related_resource_type and related_resource_id together',
        },
      ]);
    }
    if (!relatedCleared) await checkRelatedRecord(ctx, input as any);

    const next: CalendarEventsTable = { ...row };
    for (const field of PLAIN) if (input[field] !== undefined) (next as any)[field] = input[field];
    if (TIMING.some((field) => input[field] !== undefined))
      Object.assign(next, normalizeTiming(draftFor(row, input)));
    if (input.attendees !== undefined) {
      next.attendees = JSON.stringify(await normalizeAttendees(ctx, input.attendees as AttendeeInput[]));
    }
    // Timing is normalized as a whole (a new start moves the series' columns): diff every column.
    const { changes, changed } = diffFields(
      row,
      next,
      Object.keys(row) as (keyof CalendarEventsTable & string)[],
    );
    if (changed.length) {
      next.updated_at = ctx.now;
      await updateEventRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    const event = toCalendarEvent(next);
    const visible = changed.filter((k) => !['recurring', 'series_ends_at'].includes(k));
    ctx.audit({ targetType: 'calendar_event', targetId: row.id, changedFields: visible });
    if (changed.length) {
      const name =
        next.status === 'canceled' && row.status !== 'canceled'
          ? 'calendar_event.canceled'
          : 'calendar_event.updated';
      ctx.emit({ name, targetType: 'calendar_event', targetId: row.id, data: event });
    }
    return { body: { calendar_event: event } };
  },
});
