import { Type } from '@sinclair/typebox';
import { Enum } from '../../core/resource-schema.ts';
import { attendeeSchema } from './event-input.ts';

export const eventStatus = (description?: string) =>
  Enum(['confirmed', 'tentative', 'canceled'] as const, description ? { description } : {});
export const relatedType = Enum(['contact', 'company', 'deal', 'support_ticket', 'project_task'] as const, {
  description: 'Send with related_resource_id.',
});
const date = (description?: string) =>
  Type.String({ format: 'date', ...(description ? { description } : {}) });

export const eventFields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  description: Type.String({ maxLength: 20_000 }),
  location: Type.String({ maxLength: 1000 }),
  all_day: Type.Boolean(),
  starts_at: Type.String({ format: 'date-time' }),
  ends_at: Type.String({ format: 'date-time', description: 'After starts_at.' }),
  start_date: date(),
  end_date: date('Inclusive; default start_date.'),
  timezone: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "IANA zone; local times stay put across DST. Default the calendar's.",
  }),
  recurrence: Type.String({
    minLength: 6,
    maxLength: 500,
    description:
      'RFC 5545 RRULE, e.g. FREQ=WEEKLY;BYDAY=MO,WE. DAILY to YEARLY; no BYHOUR/BYMINUTE/BYSECOND; the start must be the first occurrence.',
  }),
  excluded_dates: Type.Array(date(), {
    maxItems: 500,
    description: 'Local dates whose occurrence is skipped (EXDATE).',
  }),
  attendees: Type.Array(attendeeSchema, {
    maxItems: 200,
    description: 'Each with an email or a contact_id.',
  }),
  related_resource_type: relatedType,
  related_resource_id: Type.String({ minLength: 1 }),
};
