import type { Kysely } from 'kysely';
import { matchesText, type PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Calendar, CalendarEvent, CalendarEventOccurrence } from './calendar-schemas.ts';
import type { CalendarEventsTable, CalendarsTable, EventStatus } from './calendar-tables.ts';
import type { Occurrence, Timing } from './recurrence.ts';
import { formatInZone } from './zoned-time.ts';

export function toCalendar(row: CalendarsTable): Calendar {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    timezone: row.timezone,
    color: row.color,
    owner_id: row.owner_id,
    ics_path: `/v1/calendar/calendars/${row.id}/ics`,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function timingOf(row: CalendarEventsTable): Timing {
  return {
    allDay: Boolean(Number(row.all_day)),
    timezone: row.timezone,
    startsAt: Date.parse(row.starts_at),
    endsAt: Date.parse(row.ends_at),
    startDate: row.start_date,
    endDate: row.end_date,
    recurrence: row.recurrence,
    excludedDates: JSON.parse(row.excluded_dates) as string[],
  };
}

export function toCalendarEvent(row: CalendarEventsTable): CalendarEvent {
  return {
    id: row.id,
    calendar_id: row.calendar_id,
    title: row.title,
    description: row.description,
    location: row.location,
    status: row.status,
    all_day: Boolean(Number(row.all_day)),
    starts_at: formatInZone(row.timezone, Date.parse(row.starts_at)),
    ends_at: formatInZone(row.timezone, Date.parse(row.ends_at)),
    start_date: row.start_date,
    end_date: row.end_date,
    timezone: row.timezone,
    recurrence: row.recurrence,
    excluded_dates: JSON.parse(row.excluded_dates) as string[],
    attendees: JSON.parse(row.attendees) as CalendarEvent['attendees'],
    related_resource_type: row.related_resource_type,
    related_resource_id: row.related_resource_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** One occurrence of an event in a time window: its own start and end, and the event it comes from. */
export function toOccurrence(row: CalendarEventsTable, occurrence: Occurrence): CalendarEventOccurrence {
  return {
    event_id: row.id,
    calendar_id: row.calendar_id,
    title: row.title,
    description: row.description,
    location: row.location,
    status: row.status,
    all_day: Boolean(Number(row.all_day)),
    starts_at: formatInZone(row.timezone, occurrence.startsAt),
    ends_at: formatInZone(row.timezone, occurrence.endsAt),
    start_date: occurrence.startDate,
    end_date: occurrence.endDate,
    timezone: row.timezone,
    recurring: Boolean(Number(row.recurring)),
    related_resource_type: row.related_resource_type,
    related_resource_id: row.related_resource_id,
  };
}

export const insertCalendar = (db: Kysely<DB>, row: CalendarsTable) => insertRows(db, 'calendars', row);
export const insertEvent = (db: Kysely<DB>, row: CalendarEventsTable) =>
  insertRows(db, 'calendar_events', row);

export function updateCalendarRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<CalendarsTable>,
) {
  return updateRow(db, 'calendars', workspaceId, id, changes);
}

export function updateEventRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<CalendarEventsTable>,
) {
  return updateRow(db, 'calendar_events', workspaceId, id, changes);
}

/** The contacts that attendees name (the contact's name and email fill the attendee's). */
export function attendeeContacts(db: Kysely<DB>, workspaceId: string, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db
    .selectFrom('contacts')
    .select(['id', 'name', 'email'])
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
}

/** A calendar's newest events, for its feed. */
export function feedEvents(db: Kysely<DB>, workspaceId: string, calendarId: string, limit: number) {
  return db
    .selectFrom('calendar_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('calendar_id', '=', calendarId)
    .orderBy('starts_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export function findCalendar(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'calendars', workspaceId, id);
}

export function findEvent(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'calendar_events', workspaceId, id);
}

export async function listCalendars(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { owner_id?: string; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('calendars').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.owner_id) query = query.where('owner_id', '=', filters.owner_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'calendars',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toCalendar) };
}

export interface EventFilters {
  calendar_id?: string;
  status?: EventStatus;
  related_resource_type?: string;
  related_resource_id?: string;
  query?: string;
}

export function eventQuery(db: Kysely<DB>, workspaceId: string, filters: EventFilters) {
  let query = db.selectFrom('calendar_events').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.calendar_id) query = query.where('calendar_id', '=', filters.calendar_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.related_resource_type)
    query = query.where('related_resource_type', '=', filters.related_resource_type);
  if (filters.related_resource_id)
    query = query.where('related_resource_id', '=', filters.related_resource_id);
  // The windows of list_calendar_events read the events of a bounded period: a scan of those is enough.
  if (filters.query) query = query.where(matchesText(['title', 'description', 'location'], filters.query));
  return query;
}

export interface EventWindow {
  from: string;
  to: string;
}

/**
 * Single events overlapping the window in start order, after the cursor's (starts_at, id) when given: at
 * most `limit` rows.
 */
export function singleEventsInWindow(
  db: Kysely<DB>,
  workspaceId: string,
  filters: EventFilters,
  window: EventWindow & { after?: { startsAt: string; eventId: string }; limit: number },
) {
  let query = eventQuery(db, workspaceId, filters)
    .where('recurring', '=', 0)
    .where('starts_at', '<', window.to)
    .where('ends_at', '>', window.from);
  const after = window.after;
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('starts_at', '>', after.startsAt),
        eb.and([eb('starts_at', '=', after.startsAt), eb('id', '>', after.eventId)]),
      ]),
    );
  }
  return query.orderBy('starts_at').orderBy('id').limit(window.limit).execute();
}

/** Recurring series that start before the window ends and do not end before it starts. */
export function seriesInWindow(
  db: Kysely<DB>,
  workspaceId: string,
  filters: EventFilters,
  window: EventWindow,
) {
  return eventQuery(db, workspaceId, filters)
    .where('recurring', '=', 1)
    .where('starts_at', '<', window.to)
    .where((eb) => eb.or([eb('series_ends_at', 'is', null), eb('series_ends_at', '>', window.from)]))
    .execute();
}

export async function listEvents(
  db: Kysely<DB>,
  workspaceId: string,
  filters: EventFilters,
  page: PageRequest,
) {
  const result = await fetchSearchPage(
    db,
    eventQuery(db, workspaceId, { ...filters, query: undefined }),
    page,
    {
      table: 'calendar_events',
      workspaceId,
      text: filters.query,
    },
  );
  return { ...result, items: result.items.map(toCalendarEvent) };
}
