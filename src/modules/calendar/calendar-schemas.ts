// The calendar resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  DateOnly,
  Enum,
  Nullable,
  NullableText,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';

const zone = Text('Europe/Berlin', 'An IANA time zone.');
// ISO 8601 with the zone's offset; not format date-time, because a local-mean-time offset (before a zone
// adopted standard time) carries seconds, which RFC 3339 lacks: 1850-06-01T07:03:58-04:56:02.
const zonedTime = (description: string) =>
  Type.String({
    examples: ['2026-11-23T09:00:00+01:00'],
    description: `${description} ISO 8601 with the offset of the event's zone (to the second before 1900).`,
  });
const status = Enum(['confirmed', 'tentative', 'canceled'] as const);

export const CalendarSchema = Resource('Calendar', {
  id: RecordId('cal'),
  name: Text('Team calendar'),
  description: NullableText('Meetings and launches.'),
  timezone: zone,
  color: NullableText('#3366ff'),
  owner_id: NullableText('usr_ada'),
  ics_path: Text('/v1/calendar/calendars/cal_01JDB3Y5Q0ZK8X4M2N7P9R6T3V/ics', 'Path of the iCalendar feed.'),
  ...timestamps,
});
export type Calendar = Static<typeof CalendarSchema>;

export const CalendarEventSchema = Resource('CalendarEvent', {
  id: RecordId('cev'),
  calendar_id: RecordId('cal'),
  title: Text('Weekly planning'),
  description: NullableText('Agenda in the shared doc.'),
  location: NullableText('Room 4.01'),
  status,
  all_day: Type.Boolean(),
  starts_at: zonedTime("First start, with the offset of the event's zone."),
  ends_at: zonedTime("First end, with the offset of the event's zone."),
  start_date: Nullable(DateOnly(), { description: 'All-day events: the first day.' }),
  end_date: Nullable(DateOnly(), { description: 'All-day events: the day after the last (exclusive).' }),
  timezone: zone,
  recurrence: NullableText('FREQ=WEEKLY;BYDAY=MO', 'An RFC 5545 RRULE.'),
  excluded_dates: Type.Array(Type.String(), { examples: [['2026-12-28']] }),
  attendees: Type.Array(
    Shape({
      email: NullableText('ada@example.com'),
      contact_id: Nullable(RecordId('con')),
      name: NullableText('Ada Lovelace'),
      response: Enum(['needs_action', 'accepted', 'declined', 'tentative'] as const),
    }),
  ),
  related_resource_type: NullableText('deal'),
  related_resource_id: NullableText('deal_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
  ...timestamps,
});
export type CalendarEvent = Static<typeof CalendarEventSchema>;

/** One occurrence in a listed time window (list_calendar_events with from and to). */
export const CalendarEventOccurrenceSchema = Resource('CalendarEventOccurrence', {
  event_id: RecordId('cev'),
  calendar_id: RecordId('cal'),
  title: Text('Weekly planning'),
  description: NullableText('Agenda in the shared doc.'),
  location: NullableText('Room 4.01'),
  status,
  all_day: Type.Boolean(),
  starts_at: zonedTime("This occurrence's start."),
  ends_at: zonedTime("This occurrence's end."),
  start_date: Nullable(DateOnly()),
  end_date: Nullable(DateOnly()),
  timezone: zone,
  recurring: Type.Boolean(),
  related_resource_type: NullableText('deal'),
  related_resource_id: NullableText('deal_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
});
export type CalendarEventOccurrence = Static<typeof CalendarEventOccurrenceSchema>;
