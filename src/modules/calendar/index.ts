import { Type } from '@sinclair/typebox';
import type { ModuleDefinition } from '../../core/module.ts';
import { calendarCounts } from './calendar-store.ts';
import {
  calendarFeed,
  calendarRecord,
  createCalendar,
  listCalendarsOperation,
  updateCalendar,
} from './calendars.ts';
import { listEventsOperation } from './event-list.ts';
import { calendarEventRecord, createCalendarEvent, updateCalendarEvent } from './events.ts';

const eventData = Type.Object({
  id: Type.String(),
  calendar_id: Type.String(),
  title: Type.String(),
  status: Type.String(),
  all_day: Type.Boolean(),
  starts_at: Type.String({ description: "First start, with the offset of the event's zone." }),
  ends_at: Type.String(),
  timezone: Type.String(),
  recurrence: Type.Union([Type.String(), Type.Null()]),
});

export const calendarModule: ModuleDefinition = {
  name: 'calendar',
  operations: [
    listCalendarsOperation,
    createCalendar,
    updateCalendar,
    listEventsOperation,
    createCalendarEvent,
    updateCalendarEvent,
    calendarFeed,
  ],
  recordTypes: [calendarRecord, calendarEventRecord],
  events: [
    { name: 'calendar.created', description: 'A calendar was created; data is the calendar.' },
    { name: 'calendar.updated', description: 'A calendar changed; data is the calendar.' },
    {
      name: 'calendar_event.created',
      description: 'An event was created; data is the event.',
      schema: eventData,
    },
    {
      name: 'calendar_event.updated',
      description: 'An event (the whole series, for a recurring one) changed; data is the event.',
      schema: eventData,
    },
    {
      name: 'calendar_event.canceled',
      description: 'An event became canceled; data is the event.',
      schema: eventData,
    },
  ],
  summary: [
    {
      module: 'calendar',
      scope: 'calendar:read',
      key: 'calendar',
      compute: (db, workspaceId, now) => calendarCounts(db, workspaceId, now),
    },
  ],
};
