// Dates and times lie between 1900 and 9999 everywhere, a recurring series starting long before a window
// is expanded at the cost of the window only (list, workspace summary), and zoned times are right in every
// year, local-mean-time offsets kept to the second.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expansionSteps } from '../src/modules/calendar/recurrence.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let calendarId: string;

beforeAll(async () => {
  h = await Harness.start(); // the clock reads 2026-11-21T12:00:00Z
  ws = await h.workspace();
  calendarId = (await post('/v1/calendar/calendars', { name: 'NY office', timezone: 'America/New_York' }))
    .body.calendar.id;
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const fieldErrors = (res: { status: number; body: any }) => {
  expect(res.status).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  return res.body.error.field_errors.map((e: { field: string }) => e.field);
};

async function createEvent(body: Record<string, unknown>) {
  const res = await post('/v1/calendar/events', { calendar_id: calendarId, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.calendar_event;
}

/** Every page of a window, with the rrule work each request cost. */
async function wholeWindow(from: string, to: string) {
  const occurrences: any[] = [];
  const steps: number[] = [];
  let cursor: string | undefined;
  do {
    const before = expansionSteps();
    const res = await get(
      `/v1/calendar/events?calendar_id=${calendarId}&from=${from}&to=${to}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status, res.text).toBe(200);
    steps.push(expansionSteps() - before);
    occurrences.push(...res.body.calendar_events);
    cursor = res.body.next_cursor;
  } while (cursor);
  return { occurrences, steps };
}

describe('recurring series starting long before the window', () => {
  it('lists a 2026 year of a daily series from 1900 walking only the periods of each page', async () => {
    const daily = await createEvent({
      title: 'Since 1900',
      starts_at: '1900-01-01T09:00:00-05:00',
      ends_at: '1900-01-01T09:30:00-05:00',
      recurrence: 'FREQ=DAILY',
      excluded_dates: ['2026-07-04'],
    });
    const { occurrences, steps } = await wholeWindow('2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z');
    const mine = occurrences.filter((o) => o.event_id === daily.id);
    expect(mine).toHaveLength(364);
    expect(mine[0]).toMatchObject({
      starts_at: '2026-01-01T09:00:00-05:00',
      ends_at: '2026-01-01T09:30:00-05:00',
    });
    // Local time kept across DST, the excluded date skipped.
    expect(mine.find((o) => o.starts_at.startsWith('2026-07-03'))!.starts_at).toBe(
      '2026-07-03T09:00:00-04:00',
    );
    expect(mine.some((o) => o.starts_at.startsWith('2026-07-04'))).toBe(false);
    expect(mine.at(-1).starts_at).toBe('2026-12-31T09:00:00-05:00');
    // Each page of 100 walks about its own 100 days; a walk from 1900 would take 46,000 dates a page.
    for (const work of steps) expect(work).toBeLessThan(200);
  });

  it('expands all-day and weekly series from 1900 the same way, and the summary counts only the 7 days', async () => {
    const yearly = await createEvent({
      title: 'Anniversary',
      all_day: true,
      start_date: '1900-03-01',
      recurrence: 'FREQ=YEARLY',
    });
    const weekly = await createEvent({
      title: 'Weekly',
      starts_at: '1900-01-01T14:00:00Z',
      ends_at: '1900-01-01T15:00:00Z',
      timezone: 'UTC',
      recurrence: 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH',
    });
    const before = expansionSteps();
    const window = await get(
      `/v1/calendar/events?calendar_id=${calendarId}&from=2026-02-01T00:00:00Z&to=2026-04-01T00:00:00Z&limit=100`,
    );
    expect(expansionSteps() - before).toBeLessThan(200);
    const of = (id: string) => window.body.calendar_events.filter((o: any) => o.event_id === id);
    expect(of(yearly.id).map((o: any) => o.start_date)).toEqual(['2026-03-01']);
    // 1900-01-01 is a Monday; every other week from it (2026-02-02 starts an odd one), Mondays and Thursdays.
    expect(of(weekly.id).map((o: any) => o.starts_at)).toEqual(
      ['02-09', '02-12', '02-23', '02-26', '03-09', '03-12', '03-23', '03-26'].map(
        (d) => `2026-${d}T14:00:00+00:00`,
      ),
    );

    const summaryBefore = expansionSteps();
    const summary = await get('/v1/workspace');
    expect(summary.status, summary.text).toBe(200);
    // From 2026-11-21T12:00Z: the daily series on Nov 21..27 (Nov 23 and 26 fall in the weekly series' off week).
    expect(summary.body.workspace.summary.calendar.upcoming_events).toBe(7);
    expect(expansionSteps() - summaryBefore).toBeLessThan(40);
  });

  it('refuses a COUNT rule that is not complete within 2,000 periods, accepts the same days yearly', async () => {
    const sparse = await post('/v1/calendar/events', {
      calendar_id: calendarId,
      title: 'Leap days',
      all_day: true,
      start_date: '1904-02-29',
      recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=29;COUNT=100',
    });
    expect(fieldErrors(sparse)).toEqual(['recurrence']);
    expect(sparse.body.error.field_errors[0].message).toMatch(/not reached within 2000 periods/);
    const yearly = await createEvent({
      title: 'Leap days',
      all_day: true,
      start_date: '1904-02-29',
      recurrence: 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29;COUNT=100',
    });
    const row = await h.db
      .selectFrom('calendar_events')
      .selectAll()
      .where('id', '=', yearly.id)
      .executeTakeFirstOrThrow();
    // The 100th leap day from 1904 (2100, 2200 and 2300 are not leap years).
    expect(row.series_ends_at).toBe('2312-03-01T05:00:00.000Z');
    // A rule that ends with rrule's last year before its COUNT is complete as it is.
    const millennia = await createEvent({
      title: 'Every 999 years',
      starts_at: '2026-01-01T12:00:00Z',
      ends_at: '2026-01-01T13:00:00Z',
      timezone: 'UTC',
      recurrence: 'FREQ=YEARLY;INTERVAL=999;COUNT=20',
    });
    const last = await h.db
      .selectFrom('calendar_events')
      .selectAll()
      .where('id', '=', millennia.id)
      .executeTakeFirstOrThrow();
    expect(last.series_ends_at).toBe('9019-01-01T13:00:00.000Z');
  });
});

describe('date and time bounds', () => {
  it('refuses year 0001 (and anything outside 1900-9999) on create, update and in queries', async () => {
    const early = {
      starts_at: '0001-01-01T00:00:00Z',
      ends_at: '0001-01-01T01:00:00Z',
      recurrence: 'FREQ=DAILY',
    };
    const create = await post('/v1/calendar/events', {
      calendar_id: calendarId,
      title: 'Year one',
      ...early,
    });
    expect(fieldErrors(create)).toEqual(['starts_at', 'ends_at']);
    expect(create.body.error.field_errors[0].message).toBe(
      'must be a valid date-time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z',
    );
    const allDay = await post('/v1/calendar/events', {
      calendar_id: calendarId,
      title: 'Year one',
      all_day: true,
      start_date: '0001-01-01',
      recurrence: 'FREQ=DAILY',
      excluded_dates: ['0099-01-02'],
    });
    expect(fieldErrors(allDay)).toEqual(['start_date', 'excluded_dates[0]']);
    const until = await post('/v1/calendar/events', {
      calendar_id: calendarId,
      title: 'Until',
      starts_at: '2026-01-01T09:00:00Z',
      ends_at: '2026-01-01T10:00:00Z',
      recurrence: 'FREQ=DAILY;UNTIL=18991231',
    });
    expect(fieldErrors(until)).toEqual(['recurrence']);

    const event = await createEvent({
      title: 'Fine',
      starts_at: '2026-05-01T09:00:00-04:00',
      ends_at: '2026-05-01T10:00:00-04:00',
    });
    const url = `/v1/calendar/events/${event.id}`;
    expect(fieldErrors(await patch(url, { starts_at: '0001-01-01T00:00:00Z' }))).toEqual(['starts_at']);
    expect(fieldErrors(await patch(url, { starts_at: '1899-12-31T23:59:59Z' }))).toEqual(['starts_at']);
    expect(fieldErrors(await patch(url, { ends_at: '9999-12-31T23:59:59-05:00' }))).toEqual(['ends_at']);
    // A moved start keeps the length: an end past 9999 is refused too, never stored.
    expect(fieldErrors(await patch(url, { starts_at: '9999-12-31T23:30:00Z' }))).toEqual(['ends_at']);
    // Texts the format allows but JavaScript cannot read (a leap second, an hours-only offset).
    expect(fieldErrors(await patch(url, { starts_at: '2026-06-30T23:59:60Z' }))).toEqual(['starts_at']);
    expect(fieldErrors(await patch(url, { starts_at: '2026-06-30T10:00:00+01' }))).toEqual(['starts_at']);
    // The boundary itself is accepted, whatever offset names it.
    const boundary = await patch(url, {
      starts_at: '1899-12-31T23:00:00-01:00',
      ends_at: '1900-01-01T01:00:00Z',
    });
    expect(boundary.status, boundary.text).toBe(200);
    expect((await get(url)).body.calendar_event.starts_at).toBe('1899-12-31T19:00:00-05:00');

    expect(
      fieldErrors(await get('/v1/calendar/events?from=0001-01-01T00:00:00Z&to=0001-06-01T00:00:00Z')),
    ).toEqual(['from', 'to']);
    // The bound is the shared schema layer's: other modules and MCP get it too.
    expect(fieldErrors(await post('/v1/tasks', { title: 'Old', due_at: '0001-01-01T00:00:00Z' }))).toEqual([
      'due_at',
    ]);
    const mcp = await h.callTool(ws.mcpToken, 'create_calendar_event', {
      calendar_id: calendarId,
      title: 'Year one',
      ...early,
    });
    expect(mcp.body.error.code).toBe('validation_failed');
    expect(mcp.body.error.field_errors.map((e: any) => e.field)).toEqual(['starts_at', 'ends_at']);
  });
});

describe('zoned times in every accepted year', () => {
  it('answers local-mean-time offsets to the second, and a later PATCH keeps the instants', async () => {
    // Monrovia kept its mean time (-0:44:30) until 1972.
    const event = await createEvent({
      title: 'Monrovia',
      starts_at: '1960-01-01T12:00:00Z',
      ends_at: '1960-01-01T13:00:00Z',
      timezone: 'Africa/Monrovia',
      recurrence: 'FREQ=YEARLY',
    });
    expect(event).toMatchObject({
      starts_at: '1960-01-01T11:15:30-00:44:30',
      ends_at: '1960-01-01T12:15:30-00:44:30',
    });
    const url = `/v1/calendar/events/${event.id}`;
    const renamed = await patch(url, { title: 'Monrovia office' });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.body.calendar_event).toMatchObject({
      starts_at: '1960-01-01T11:15:30-00:44:30',
      ends_at: '1960-01-01T12:15:30-00:44:30',
    });
    const row = await h.db
      .selectFrom('calendar_events')
      .selectAll()
      .where('id', '=', event.id)
      .executeTakeFirstOrThrow();
    expect([row.starts_at, row.ends_at]).toEqual(['1960-01-01T12:00:00.000Z', '1960-01-01T13:00:00.000Z']);
    const window = await get(
      `/v1/calendar/events?calendar_id=${calendarId}&from=1971-01-01T00:00:00Z&to=1972-01-01T00:00:00Z`,
    );
    expect(window.status, window.text).toBe(200);
    expect(
      window.body.calendar_events.filter((o: any) => o.event_id === event.id).map((o: any) => o.starts_at),
    ).toEqual(['1971-01-01T11:15:30-00:44:30']);
    const ics = await get(`/v1/calendar/calendars/${calendarId}/ics`);
    expect(ics.status).toBe(200);
    expect(ics.text).toContain('TZOFFSETTO:-004430');
    expect(ics.text).toContain('DTSTART;TZID=Africa/Monrovia:19600101T111530');
  });
});
