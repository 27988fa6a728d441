import { Type } from '@sinclair/typebox';
import { Enum } from '../../core/resource-schema.ts';
import { attendeeSchema } from './event-input.ts';

export const eventStatus = Enum(['confirmed', 'tentative', 'canceled'] as const, {
  description: 'confirmed (default), tentative or canceled.',
});
export const relatedType = Enum(['contact', 'company', 'deal', 'support_ticket', 'project_task'] as const, {
  description: 'Type of the related record; send with related_resource_id.',
});
const date = (description: string) => Type.String({ format: 'date', description });

export const eventFields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.String({ maxLength: 20_000 }),
  location: Type.String({ maxLength: 1000 }),
  all_day: Type.Boolean({ description: 'True for an all-day event (start_date, end_date); default false.' }),
  starts_at: Type.String({ format: 'date-time', description: 'Start, ISO 8601 with offset (timed events).' }),
  ends_at: Type.String({ format: 'date-time', description: 'End, ISO 8601 with offset, after starts_at.' }),
  start_date: date('First day of an all-day event (YYYY-MM-DD).'),
  end_date: date('Last day of an all-day event, inclusive (YYYY-MM-DD); default start_date.'),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "IANA zone the event recurs in (local times stay put across DST); default the calendar's.",
  }),
  recurrence: Type.String({
    minLength: 6,
    maxLength: 500,
    description:
      'RFC 5545 RRULE value, e.g. FREQ=WEEKLY;BYDAY=MO,WE;UNTIL=20261231 or FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=12. ' +
      'FREQ DAILY to YEARLY; no BYHOUR/BYMINUTE/BYSECOND; the start must be the first occurrence.',
  }),
  excluded_dates: Type.Array(date('A local date (YYYY-MM-DD) whose occurrence is skipped.'), {
    maxItems: 500,
    description: 'Dates of a recurring event whose occurrence is skipped (EXDATE).',
  }),
  attendees: Type.Array(attendeeSchema, {
    maxItems: 200,
    description: 'Each with an email or a contact_id.',
  }),
  related_resource_type: relatedType,
  related_resource_id: Type.String({ minLength: 1 }),
};
