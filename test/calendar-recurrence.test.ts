// Recurring events: occurrences keep their local time across DST, monthly rules on the 31st, excluded
// dates, windowed paging, and the iCalendar feed parsed back with ical.js.
import ICAL from 'ical.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let calendarId: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  calendarId = (await post('/v1/calendar/calendars', { name: 'NY office', timezone: 'America/New_York' }))
    .body.calendar.id;
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });

async function createEvent(body: Record<string, unknown>) {
  const res = await post('/v1/calendar/events', { calendar_id: calendarId, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.calendar_event;
}

async function window(from: string, to: string, extra = '') {
  const res = await get(
    `/v1/calendar/events?calendar_id=${calendarId}&from=${from}&to=${to}&limit=100${extra}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.calendar_events as any[];
}

describe('recurrence', () => {
  it('keeps a weekly event at 09:00 local across the March DST change, skipping excluded dates', async () => {
    const standup = await createEvent({
      title: 'Standup',
      starts_at: '2026-03-02T09:00:00-05:00',
      ends_at: '2026-03-02T09:15:00-05:00',
      recurrence: 'RRULE:FREQ=WEEKLY;BYDAY=MO;COUNT=6',
      excluded_dates: ['2026-03-16'],
    });
    expect(standup).toMatchObject({
      recurrence: 'FREQ=WEEKLY;COUNT=6;BYDAY=MO',
      excluded_dates: ['2026-03-16'],
      timezone: 'America/New_York',
    });
    const row = await h.db
      .selectFrom('calendar_events')
      .selectAll()
      .where('id', '=', standup.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ recurring: 1, series_ends_at: '2026-04-06T13:15:00.000Z' });
    const occurrences = (await window('2026-02-01T00:00:00Z', '2026-05-01T00:00:00Z')).filter(
      (o) => o.event_id === standup.id,
    );
    expect(occurrences.map((o) => [o.starts_at, o.ends_at])).toEqual([
      ['2026-03-02T09:00:00-05:00', '2026-03-02T09:15:00-05:00'],
      ['2026-03-09T09:00:00-04:00', '2026-03-09T09:15:00-04:00'],
      ['2026-03-23T09:00:00-04:00', '2026-03-23T09:15:00-04:00'],
      ['2026-03-30T09:00:00-04:00', '2026-03-30T09:15:00-04:00'],
      ['2026-04-06T09:00:00-04:00', '2026-04-06T09:15:00-04:00'],
    ]);
    // The UTC instants shift by an hour: the local time is what stays.
    expect(occurrences.map((o) => new Date(o.starts_at).toISOString().slice(11, 16))).toEqual([
      '14:00',
      '13:00',
      '13:00',
      '13:00',
      '13:00',
    ]);
    expect(occurrences[0]).toMatchObject({
      recurring: true,
      title: 'Standup',
      calendar_id: calendarId,
      all_day: false,
    });
  });

  it("keeps local time across the November change in another zone than the calendar's", async () => {
    const review = await createEvent({
      title: 'Review',
      timezone: 'Europe/Berlin',
      starts_at: '2026-10-20T17:00:00+02:00',
      ends_at: '2026-10-20T18:00:00+02:00',
      recurrence: 'FREQ=WEEKLY;UNTIL=20261110',
    });
    const starts = (await window('2026-10-01T00:00:00Z', '2026-12-01T00:00:00Z'))
      .filter((o) => o.event_id === review.id)
      .map((o) => o.starts_at);
    expect(starts).toEqual([
      '2026-10-20T17:00:00+02:00',
      '2026-10-27T17:00:00+01:00',
      '2026-11-03T17:00:00+01:00',
      '2026-11-10T17:00:00+01:00',
    ]);
  });

  it('repeats monthly on the 31st only in months that have one, and on the last day with -1', async () => {
    const on31 = await createEvent({
      title: 'Month end close',
      starts_at: '2026-01-31T16:00:00-05:00',
      ends_at: '2026-01-31T17:00:00-05:00',
      recurrence: 'FREQ=MONTHLY;BYMONTHDAY=31',
    });
    const last = await createEvent({
      title: 'Last day',
      all_day: true,
      start_date: '2026-01-31',
      recurrence: 'FREQ=MONTHLY;BYMONTHDAY=-1;COUNT=4',
    });
    const all = await window('2026-01-01T00:00:00Z', '2026-12-31T23:00:00Z');
    const dates = (id: string) => all.filter((o) => o.event_id === id).map((o) => o.starts_at.slice(0, 10));
    expect(dates(on31.id)).toEqual([
      '2026-01-31',
      '2026-03-31',
      '2026-05-31',
      '2026-07-31',
      '2026-08-31',
      '2026-10-31',
      '2026-12-31',
    ]);
    expect(
      all.filter((o) => o.event_id === on31.id).every((o) => o.starts_at.slice(11, 19) === '16:00:00'),
    ).toBe(true);
    expect(all.filter((o) => o.event_id === last.id).map((o) => [o.start_date, o.end_date])).toEqual([
      ['2026-01-31', '2026-01-31'],
      ['2026-02-28', '2026-02-28'],
      ['2026-03-31', '2026-03-31'],
      ['2026-04-30', '2026-04-30'],
    ]);
  });

  it('pages occurrences in start order with a keyset cursor, singles and series interleaved', async () => {
    const other = (await post('/v1/calendar/calendars', { name: 'Paging', timezone: 'UTC' })).body.calendar
      .id;
    const make = (body: Record<string, unknown>) =>
      post('/v1/calendar/events', { calendar_id: other, title: 'x', ...body });
    await make({
      title: 'daily',
      starts_at: '2026-06-01T08:00:00Z',
      ends_at: '2026-06-01T08:30:00Z',
      recurrence: 'FREQ=DAILY',
    });
    await make({
      title: 'also daily',
      starts_at: '2026-06-01T08:00:00Z',
      ends_at: '2026-06-01T09:00:00Z',
      recurrence: 'FREQ=DAILY;INTERVAL=2',
    });
    await make({ title: 'single', starts_at: '2026-06-03T08:00:00Z', ends_at: '2026-06-03T10:00:00Z' });
    await make({ title: 'spanning', starts_at: '2026-05-31T00:00:00Z', ends_at: '2026-06-02T00:00:00Z' });
    await make({
      title: 'canceled',
      starts_at: '2026-06-04T00:00:00Z',
      ends_at: '2026-06-04T01:00:00Z',
      status: 'canceled',
    });
    const expected = (
      await get(
        `/v1/calendar/events?calendar_id=${other}&from=2026-06-01T00:00:00Z&to=2026-06-08T00:00:00Z&limit=100`,
      )
    ).body.calendar_events;
    expect(expected.map((o: any) => `${o.starts_at} ${o.title}`).slice(0, 6)).toEqual([
      '2026-05-31T00:00:00+00:00 spanning',
      '2026-06-01T08:00:00+00:00 daily',
      '2026-06-01T08:00:00+00:00 also daily',
      '2026-06-02T08:00:00+00:00 daily',
      '2026-06-03T08:00:00+00:00 daily',
      '2026-06-03T08:00:00+00:00 also daily',
    ]);
    expect(expected).toHaveLength(1 + 7 + 4 + 1 + 1);
    const paged: any[] = [];
    let cursor: string | undefined;
    do {
      const res = await get(
        `/v1/calendar/events?calendar_id=${other}&from=2026-06-01T00:00:00Z&to=2026-06-08T00:00:00Z&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(res.body.calendar_events.length).toBeLessThanOrEqual(3);
      paged.push(...res.body.calendar_events);
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(expected);
    const confirmed = await get(
      `/v1/calendar/events?calendar_id=${other}&from=2026-06-01T00:00:00Z&to=2026-06-08T00:00:00Z&status=canceled`,
    );
    expect(confirmed.body.calendar_events.map((o: any) => o.title)).toEqual(['canceled']);
  });
});

describe('iCalendar feed', () => {
  it('parses back with ical.js: events, RRULE, EXDATE and the same local times', async () => {
    const feedCal = (
      await post('/v1/calendar/calendars', { name: 'Feed, with; chars', timezone: 'America/New_York' })
    ).body.calendar;
    const make = (body: Record<string, unknown>) =>
      post('/v1/calendar/events', { calendar_id: feedCal.id, ...body });
    const weekly = (
      await make({
        title: 'Planning; weekly, team',
        description: 'Line one\nLine two',
        location: 'Room 5',
        starts_at: '2026-03-02T09:00:00-05:00',
        ends_at: '2026-03-02T10:00:00-05:00',
        recurrence: 'FREQ=WEEKLY;BYDAY=MO;COUNT=5',
        excluded_dates: ['2026-03-16'],
        attendees: [{ email: 'ann@example.com', name: 'Ann', response: 'accepted' }],
      })
    ).body.calendar_event;
    const holiday = (
      await make({ title: 'Holiday', all_day: true, start_date: '2026-07-03', end_date: '2026-07-04' })
    ).body.calendar_event;
    const utc = (
      await make({
        title: 'UTC call',
        timezone: 'UTC',
        starts_at: '2026-04-01T12:00:00Z',
        ends_at: '2026-04-01T12:30:00Z',
        status: 'tentative',
      })
    ).body.calendar_event;

    const res = await get(`/v1/calendar/calendars/${feedCal.id}/ics`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/calendar; charset=utf-8');
    expect(res.text).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(res.text.split('\r\n').every((line) => Buffer.byteLength(line) <= 75)).toBe(true);

    const vcalendar = new ICAL.Component(ICAL.parse(res.text));
    // ical.js leaves X- properties undecoded: the TEXT escaping is what arrives.
    expect(vcalendar.getFirstPropertyValue('x-wr-calname')).toBe('Feed\\, with\\; chars');
    for (const vtimezone of vcalendar.getAllSubcomponents('vtimezone'))
      ICAL.TimezoneService.register(vtimezone);
    const vevents = vcalendar.getAllSubcomponents('vevent');
    expect(vevents).toHaveLength(3);
    const byUid = new Map(vevents.map((v) => [String(v.getFirstPropertyValue('uid')), new ICAL.Event(v)]));

    const planning = byUid.get(`${weekly.id}@wos`)!;
    expect(planning.summary).toBe('Planning; weekly, team');
    expect(planning.description).toBe('Line one\nLine two');
    expect(planning.location).toBe('Room 5');
    expect(String(planning.component.getFirstPropertyValue('rrule'))).toBe('FREQ=WEEKLY;COUNT=5;BYDAY=MO');
    const exdate = planning.component.getFirstProperty('exdate')!;
    expect(exdate.getParameter('tzid')).toBe('America/New_York');
    expect(String(exdate.getFirstValue())).toBe('2026-03-16T09:00:00');
    expect(planning.attendees[0]!.getFirstValue()).toBe('mailto:ann@example.com');
    expect(planning.attendees[0]!.getParameter('partstat')).toBe('ACCEPTED');
    // ical.js expands the rule with our VTIMEZONE and EXDATE: the same instants as the service's own occurrences.
    const expansion = new ICAL.RecurExpansion({ component: planning.component, dtstart: planning.startDate });
    const expanded: string[] = [];
    for (let next = expansion.next(); next; next = expansion.next())
      expanded.push(next.toJSDate().toISOString());
    const ours = (
      await get(
        `/v1/calendar/events?calendar_id=${feedCal.id}&from=2026-03-01T00:00:00Z&to=2026-04-30T00:00:00Z`,
      )
    ).body.calendar_events
      .filter((o: any) => o.event_id === weekly.id)
      .map((o: any) => new Date(o.starts_at).toISOString());
    expect(ours).toEqual([
      '2026-03-02T14:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
      '2026-03-23T13:00:00.000Z',
      '2026-03-30T13:00:00.000Z',
    ]);
    expect(expanded).toEqual(ours);

    const allDay = byUid.get(`${holiday.id}@wos`)!;
    expect(allDay.startDate.isDate).toBe(true);
    expect(allDay.startDate.toString()).toBe('2026-07-03');
    expect(allDay.endDate.toString()).toBe('2026-07-05');
    const call = byUid.get(`${utc.id}@wos`)!;
    expect(call.startDate.toJSDate().toISOString()).toBe('2026-04-01T12:00:00.000Z');
    expect(call.component.getFirstPropertyValue('status')).toBe('TENTATIVE');
  });

  it('is REST only and 404s for unknown calendars', async () => {
    expect((await get('/v1/calendar/calendars/cal_nope/ics')).status).toBe(404);
    const tool = await h.callTool(ws.mcpToken, 'get_calendar_ics', { calendar_id: calendarId });
    expect(tool.body?.error?.code ?? tool.http.body.error?.data?.error?.code).toBe('tool_not_found');
  });
});
