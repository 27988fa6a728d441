import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { CalendarSchema } from './calendar-schemas.ts';
import {
  feedEvents,
  findCalendar,
  insertCalendar,
  listCalendars,
  toCalendar,
  updateCalendarRow,
} from './calendar-store.ts';
import type { CalendarsTable } from './calendar-tables.ts';
import { checkedTimeZone } from './event-input.ts';
import { buildIcs } from './ics.ts';

export const calendarRecord = defineRecordType({
  type: 'calendar',
  module: 'calendar',
  table: 'calendars',
  collection: '/v1/calendar/calendars',
  key: 'calendar',
  readScope: 'calendar:read',
  schema: CalendarSchema,
  toResource: toCalendar,
});

const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.String({ maxLength: 20_000 });
const timezone = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'IANA name, e.g. Europe/Berlin.',
});
const color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$' });
const ownerId = Type.String({
  minLength: 1,
  maxLength: 255,
});

export const createCalendar = defineOperation({
  name: 'create_calendar',
  module: 'calendar',
  scopes: ['calendar:write'],
  kind: 'create',
  creates: 'calendar',
  summary: 'Create a calendar',
  description:
    'Creates a calendar with a time zone (default UTC) its events use unless they name their own, and an optional colour and owner. Add events with create_calendar_event; calendar apps subscribe to its iCalendar feed (ics_path). Emits calendar.created.',
  input: Strict({
    name,
    description: Type.Optional(description),
    timezone: Type.Optional(timezone),
    color: Type.Optional(color),
    owner_id: Type.Optional(ownerId),
  }),
  rest: { method: 'POST', path: '/v1/calendar/calendars' },
  responseKey: 'calendar',
  handler: async (ctx, input) => {
    const row: CalendarsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('cal'),
      name: input.name,
      description: input.description ?? null,
      timezone: checkedTimeZone(input.timezone ?? 'UTC'),
      color: input.color?.toUpperCase() ?? null,
      owner_id: input.owner_id ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertCalendar(ctx.db, row);
    const calendar = toCalendar(row);
    ctx.audit({ targetType: 'calendar', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'calendar.created', targetType: 'calendar', targetId: row.id, data: calendar });
    return { body: { calendar }, createdId: row.id };
  },
});

export const listCalendarsOperation = defineOperation({
  name: 'list_calendars',
  module: 'calendar',
  scopes: ['calendar:read'],
  kind: 'read',
  summary: 'List calendars',
  description: 'Lists calendars, newest first; query matches name and description.',
  input: Strict({
    owner_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/calendar/calendars' },
  responseKey: 'calendars',
  handler: async (ctx, input) => {
    const page = await listCalendars(ctx.db, ctx.workspaceId, input, pageRequest('list_calendars', input));
    return { body: listBody('calendars', page) };
  },
});

const UPDATABLE = ['name', 'description', 'timezone', 'color', 'owner_id'] as const;

export const updateCalendar = defineOperation({
  name: 'update_calendar',
  module: 'calendar',
  scopes: ['calendar:write'],
  kind: 'update',
  summary: 'Update a calendar',
  description:
    "Changes a calendar's name, description, timezone, color or owner_id. A new timezone applies to events created afterwards. Emits calendar.updated when something changed.",
  input: Strict({
    calendar_id: Type.String({ minLength: 1 }),
    name: Type.Optional(name),
    description: Type.Optional(Nullable(description)),
    timezone: Type.Optional(timezone),
    color: Type.Optional(Nullable(color)),
    owner_id: Type.Optional(Nullable(ownerId)),
  }),
  rest: { method: 'PATCH', path: '/v1/calendar/calendars/{calendar_id}' },
  responseKey: 'calendar',
  handler: async (ctx, input) => {
    requireSomeField(input, UPDATABLE);
    const normalized = {
      ...input,
      ...(input.timezone !== undefined ? { timezone: checkedTimeZone(input.timezone) } : {}),
      ...(typeof input.color === 'string' ? { color: input.color.toUpperCase() } : {}),
    };
    const row = await findCalendar(ctx.db, ctx.workspaceId, input.calendar_id);
    if (!row) throw notFound('calendar');
    const { changes, changed } = diffFields(row, normalized, UPDATABLE);
    const next = changed.length ? { ...row, ...changes, updated_at: ctx.now } : row;
    if (changed.length) {
      await updateCalendarRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    const calendar = toCalendar(next);
    ctx.audit({ targetType: 'calendar', targetId: row.id, changedFields: changed });
    if (changed.length)
      ctx.emit({ name: 'calendar.updated', targetType: 'calendar', targetId: row.id, data: calendar });
    return { body: { calendar } };
  },
});

const FEED_LIMIT = 10_000;

export const calendarFeed = defineOperation({
  name: 'get_calendar_ics',
  module: 'calendar',
  scopes: ['calendar:read'],
  kind: 'read',
  mcp: false,
  extension: true,
  summary: 'Export a calendar as iCalendar',
  description:
    'REST only: the calendar as an iCalendar (RFC 5545, text/calendar) feed for calendar apps, one VEVENT ' +
    'per event with RRULE, EXDATE, attendees and a VTIMEZONE per zone used. Includes canceled events as ' +
    'STATUS:CANCELLED and at most the 10,000 most recently starting events.',
  input: Strict({ calendar_id: Type.String({ minLength: 1 }) }),
  rest: { method: 'GET', path: '/v1/calendar/calendars/{calendar_id}/ics' },
  responseMediaType: 'text/calendar',
  responseKey: 'calendar',
  handler: async (ctx, input) => {
    const calendar = await findCalendar(ctx.db, ctx.workspaceId, input.calendar_id);
    if (!calendar) throw notFound('calendar');
    const events = await feedEvents(ctx.db, ctx.workspaceId, calendar.id, FEED_LIMIT);
    const payload = buildIcs(calendar, events.reverse(), 'wos', ctx.now);
    return {
      body: { calendar: toCalendar(calendar) },
      raw: { contentType: 'text/calendar; charset=utf-8', payload },
    };
  },
});
