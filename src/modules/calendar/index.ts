import type { ModuleDefinition } from '../../core/module.ts';
import { CalendarEventSchema, CalendarSchema } from './calendar-schemas.ts';
import { calendarCounts } from './calendar-summary-store.ts';
import type { CalendarTables } from './calendar-tables.ts';
import {
  calendarFeed,
  calendarRecord,
  createCalendar,
  listCalendarsOperation,
  updateCalendar,
} from './calendars.ts';
import { listEventsOperation } from './event-list.ts';
import { calendarEventRecord, createCalendarEvent, updateCalendarEvent } from './events.ts';

const identity = { name: 'calendar', scopes: ['calendar:read', 'calendar:write'] } as const;

export const calendarModule: ModuleDefinition<typeof identity, CalendarTables> = {
  ...identity,
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
    {
      name: 'calendar.created',
      description: 'A calendar was created; data is the calendar.',
      schema: CalendarSchema,
    },
    {
      name: 'calendar.updated',
      description: 'A calendar changed; data is the calendar.',
      schema: CalendarSchema,
    },
    {
      name: 'calendar_event.created',
      description: 'An event was created; data is the event.',
      schema: CalendarEventSchema,
    },
    {
      name: 'calendar_event.updated',
      description: 'An event (the whole series, for a recurring one) changed; data is the event.',
      schema: CalendarEventSchema,
    },
    {
      name: 'calendar_event.canceled',
      description: 'An event became canceled; data is the event.',
      schema: CalendarEventSchema,
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
