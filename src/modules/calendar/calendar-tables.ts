export type EventStatus = 'confirmed' | 'tentative' | 'canceled';
export type AttendeeResponse = 'needs_action' | 'accepted' | 'declined' | 'tentative';

export interface CalendarsTable {
  workspace_id: string;
  id: string;
  name: string;
  description: string | null;
  timezone: string;
  color: string | null;
  owner_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface CalendarEventsTable {
  workspace_id: string;
  id: string;
  calendar_id: string;
  title: string;
  description: string | null;
  location: string | null;
  all_day: number;
  /** UTC instant (toISOString) of the first start; for all-day events the start of start_date in timezone. */
  starts_at: string;
  ends_at: string;
  /** All-day events only: first and last day (inclusive). */
  start_date: string | null;
  end_date: string | null;
  timezone: string;
  /** Normalized RRULE value (no RRULE: prefix), or null. */
  recurrence: string | null;
  recurring: number;
  /** UTC end of the last occurrence of a bounded series (COUNT/UNTIL); null when unbounded or single. */
  series_ends_at: string | null;
  /** JSON array of YYYY-MM-DD local dates. */
  excluded_dates: string;
  /** JSON array of {email, contact_id, name, response}. */
  attendees: string;
  status: EventStatus;
  related_resource_type: string | null;
  related_resource_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface CalendarTables {
  calendars: CalendarsTable;
  calendar_events: CalendarEventsTable;
}
