// Turns create and update inputs into a stored event: the timing (timed or all-day, zone, recurrence)
// is validated as a whole, so an update is checked exactly as a create of its end state.
import { type Static, Type } from '@sinclair/typebox';
import type { OperationContext } from '../../core/context.ts';
import { type FieldError, notFound, validationFailed } from '../../core/errors.ts';
import { Enum } from '../../core/resource-schema.ts';
import { LATEST_INSTANT, Strict } from '../../core/schema.ts';
import { attendeeContacts } from './calendar-store.ts';
import type { CalendarEventsTable } from './calendar-tables.ts';
import { checkRule, normalizeRule, type Timing } from './recurrence.ts';
import { canonicalTimeZone, DAY, dateToFloating, fromFloating } from './zoned-time.ts';

export const attendeeSchema = Strict({
  email: Type.Optional(Type.String({ format: 'email', maxLength: 320 })),
  contact_id: Type.Optional(
    Type.String({ minLength: 1, description: 'Its email is copied when email is absent.' }),
  ),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  response: Type.Optional(
    Enum(['needs_action', 'accepted', 'declined', 'tentative'] as const, {
      description: 'Default needs_action.',
    }),
  ),
});
export type AttendeeInput = Static<typeof attendeeSchema>;

/** The timing fields of an event's end state, as the API names them. */
export interface TimingDraft {
  all_day: boolean;
  starts_at?: string | null;
  ends_at?: string | null;
  start_date?: string | null;
  end_date?: string | null;
  timezone: string;
  recurrence?: string | null;
  excluded_dates?: string[];
}

export type StoredTiming = Pick<
  CalendarEventsTable,
  | 'all_day'
  | 'starts_at'
  | 'ends_at'
  | 'start_date'
  | 'end_date'
  | 'timezone'
  | 'recurrence'
  | 'recurring'
  | 'series_ends_at'
  | 'excluded_dates'
>;

export function checkedTimeZone(name: string, field = 'timezone'): string {
  const zone = canonicalTimeZone(name);
  if (!zone)
    throw validationFailed([{ field, message: 'must be an IANA time zone name such as Europe/Berlin' }]);
  return zone;
}

export function normalizeTiming(draft: TimingDraft): StoredTiming {
  const timezone = checkedTimeZone(draft.timezone);
  const errors: FieldError[] = [];
  let timing: Omit<Timing, 'recurrence'>;
  if (draft.all_day) {
    for (const field of ['starts_at', 'ends_at'] as const) {
      if (draft[field])
        errors.push({
          field,
          message: 'is for timed events; an all-day event takes start_date and end_date',
        });
    }
    if (!draft.start_date) errors.push({ field: 'start_date', message: 'is required for an all-day event' });
    const endDate = draft.end_date ?? draft.start_date;
    if (draft.start_date && endDate && dateToFloating(endDate) < dateToFloating(draft.start_date)) {
      errors.push({ field: 'end_date', message: 'must not be before start_date' });
    }
    if (errors.length) throw validationFailed(errors);
    timing = {
      allDay: true,
      timezone,
      startsAt: fromFloating(timezone, dateToFloating(draft.start_date!)),
      endsAt: fromFloating(timezone, dateToFloating(endDate!) + DAY),
      startDate: draft.start_date!,
      endDate: endDate!,
      excludedDates: [],
    };
  } else {
    for (const field of ['start_date', 'end_date'] as const) {
      if (draft[field])
        errors.push({ field, message: 'is for all-day events; send all_day true, or starts_at and ends_at' });
    }
    if (!draft.starts_at)
      errors.push({ field: 'starts_at', message: 'is required (or all_day with start_date)' });
    if (!draft.ends_at)
      errors.push({ field: 'ends_at', message: 'is required (or all_day with start_date)' });
    if (draft.starts_at && draft.ends_at && Date.parse(draft.ends_at) <= Date.parse(draft.starts_at)) {
      errors.push({ field: 'ends_at', message: 'must be after starts_at' });
    }
    if (errors.length) throw validationFailed(errors);
    // Calendars keep whole seconds.
    const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000) * 1000;
    timing = {
      allDay: false,
      timezone,
      startsAt: seconds(draft.starts_at!),
      endsAt: seconds(draft.ends_at!),
      startDate: null,
      endDate: null,
      excludedDates: [],
    };
  }
  // Inputs are bounded by the schemas; an end derived from them (a moved start keeps the length, an
  // all-day end is the next local midnight) must stay within the same range.
  if (!(timing.endsAt <= LATEST_INSTANT)) {
    throw validationFailed([
      { field: timing.allDay ? 'end_date' : 'ends_at', message: 'must end by 9999-12-31T23:59:59Z' },
    ]);
  }
  const excluded = [...new Set(draft.excluded_dates ?? [])].sort();
  if (excluded.length && !draft.recurrence) {
    throw validationFailed([
      { field: 'excluded_dates', message: 'only apply to a recurring event (send recurrence)' },
    ]);
  }
  const recurrence = draft.recurrence ? normalizeRule(draft.recurrence, timing) : null;
  const full: Timing = { ...timing, recurrence, excludedDates: excluded };
  const seriesEndsAt = recurrence ? checkRule(full) : null;
  return {
    all_day: timing.allDay ? 1 : 0,
    starts_at: new Date(timing.startsAt).toISOString(),
    ends_at: new Date(timing.endsAt).toISOString(),
    start_date: timing.startDate,
    end_date: timing.endDate,
    timezone,
    recurrence,
    recurring: recurrence ? 1 : 0,
    series_ends_at: seriesEndsAt,
    excluded_dates: JSON.stringify(excluded),
  };
}

/**
 * Attendees with an email or a contact_id (which must exist in the workspace; its email and name are copied
 * when not given), each listed once. Contacts are loaded in one query.
 */
export async function normalizeAttendees(ctx: OperationContext, attendees: AttendeeInput[]) {
  const contactIds = [...new Set(attendees.flatMap((a) => (a.contact_id ? [a.contact_id] : [])))];
  const contacts = await attendeeContacts(ctx.db, ctx.workspaceId, contactIds);
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const seen = new Set<string>();
  const out = [];
  for (const [i, attendee] of attendees.entries()) {
    if (!attendee.email && !attendee.contact_id) {
      throw validationFailed([{ field: `attendees[${i}]`, message: 'needs an email or a contact_id' }]);
    }
    const contact = attendee.contact_id ? byId.get(attendee.contact_id) : undefined;
    if (attendee.contact_id && !contact) throw notFound('contact');
    const email = (attendee.email ?? contact?.email ?? null)?.toLowerCase() ?? null;
    const keys = [attendee.contact_id && `contact:${attendee.contact_id}`, email && `email:${email}`].filter(
      Boolean,
    ) as string[];
    if (keys.some((key) => seen.has(key))) {
      throw validationFailed([{ field: `attendees[${i}]`, message: 'lists an attendee twice' }]);
    }
    for (const key of keys) seen.add(key);
    out.push({
      email,
      contact_id: attendee.contact_id ?? null,
      name: attendee.name ?? contact?.name ?? null,
      response: attendee.response ?? 'needs_action',
    });
  }
  return out;
}
