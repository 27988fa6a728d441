import type { Kysely } from 'kysely';
import { counterSum } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';
import { timingOf } from './calendar-store.ts';
import type { CalendarEventsTable } from './calendar-tables.ts';
import { occurrencesStartingBetween } from './recurrence.ts';
import { DAY } from './zoned-time.ts';

/**
 * Calendars (from the record counters) and the occurrences starting in the next 7 days (canceled events
 * left out) for get_workspace_summary, in one query. The occurrences depend on the time, so they are read:
 * the single events of the week over the window index (bounded by the week), and the live recurring series
 * that reach into it, which come along as rows and are expanded.
 */
export async function calendarCounts(db: Kysely<DB>, workspaceId: string, now: string) {
  const end = new Date(Date.parse(now) + 7 * DAY).toISOString();
  const counts = db
    .selectNoFrom((eb) => [
      counterSum(eb, workspaceId, 'calendars').as('calendars'),
      eb
        .selectFrom('calendar_events')
        .select((c) => c.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('recurring', '=', 0)
        .where('starts_at', '>=', now)
        .where('starts_at', '<', end)
        .where('status', '!=', 'canceled')
        .as('single_upcoming'),
    ])
    .as('counts');
  const series = db
    .selectFrom('calendar_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('recurring', '=', 1)
    .where('starts_at', '<', end)
    .where('status', '!=', 'canceled')
    .where((w) => w.or([w('series_ends_at', 'is', null), w('series_ends_at', '>', now)]))
    .as('series');
  const rows = await db
    .selectFrom(counts)
    .leftJoin(series, (join) => join.onTrue())
    .selectAll('series')
    .select(['counts.calendars', 'counts.single_upcoming'])
    .execute();
  const from = Date.parse(now);
  let upcoming = Number(rows[0]?.single_upcoming ?? 0);
  for (const row of rows) {
    if (!row.id) continue;
    upcoming += occurrencesStartingBetween(timingOf(row as CalendarEventsTable), from, from + 7 * DAY);
  }
  return { calendars: Number(rows[0]?.calendars ?? 0), upcoming_events: upcoming };
}
