// Calendars and events through the real app: validation, time zones, attendees, related records, updates.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let calendarId: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  calendarId = (await post('/v1/calendar/calendars', { name: 'Team', timezone: 'Europe/Berlin' })).body
    .calendar.id;
});
afterAll(() => h.close());

const post = (url: string, body: unknown) => h.request('POST', url, { token: ws.apiKey, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const fieldsOf = (res: { body: any }) => res.body.error.field_errors.map((e: any) => e.field);
const eventsOf = async (requestId: string) =>
  (await h.db.selectFrom('outbox_events').select('name').where('request_id', '=', requestId).execute()).map(
    (e) => e.name,
  );
const event = (body: Record<string, unknown>) =>
  post('/v1/calendar/events', { calendar_id: calendarId, title: 'Meeting', ...body });

describe('calendars', () => {
  it('creates with a validated IANA time zone, updates and lists', async () => {
    const created = await post('/v1/calendar/calendars', {
      name: 'Support rota',
      timezone: 'america/new_york',
      color: '#1a73e8',
      owner_id: 'usr_9',
    });
    expect(created.status).toBe(201);
    expect(created.body.calendar).toMatchObject({
      timezone: 'America/New_York',
      color: '#1A73E8',
      owner_id: 'usr_9',
    });
    expect(created.body.calendar.ics_path).toBe(`/v1/calendar/calendars/${created.body.calendar.id}/ics`);
    expect(await eventsOf(created.body.request_id)).toEqual(['calendar.created']);
    const utc = await post('/v1/calendar/calendars', { name: 'Default zone' });
    expect(utc.body.calendar.timezone).toBe('UTC');
    for (const timezone of ['Mars/Olympus', '+05:00', 'EST5EDT/x', '']) {
      expect(fieldsOf(await post('/v1/calendar/calendars', { name: 'x', timezone })), timezone).toEqual([
        'timezone',
      ]);
    }
    expect(fieldsOf(await post('/v1/calendar/calendars', { name: 'x', color: 'blue' }))).toEqual(['color']);
    const id = created.body.calendar.id;
    const updated = await patch(`/v1/calendar/calendars/${id}`, { timezone: 'Asia/Tokyo', color: null });
    expect(updated.body.calendar).toMatchObject({ timezone: 'Asia/Tokyo', color: null });
    expect(fieldsOf(await patch(`/v1/calendar/calendars/${id}`, { timezone: 'Nowhere/City' }))).toEqual([
      'timezone',
    ]);
    expect((await get('/v1/calendar/calendars?owner_id=usr_9')).body.calendars.map((c: any) => c.id)).toEqual(
      [id],
    );
    expect((await get('/v1/calendar/calendars?query=rota')).body.calendars).toHaveLength(1);
  });
});

describe('events', () => {
  it('creates a timed event in the calendar zone, answering times with the zone offset', async () => {
    const res = await event({
      starts_at: '2026-07-01T08:00:00Z',
      ends_at: '2026-07-01T09:30:00Z',
      location: 'Room 1',
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.calendar_event).toMatchObject({
      timezone: 'Europe/Berlin',
      all_day: false,
      starts_at: '2026-07-01T10:00:00+02:00',
      ends_at: '2026-07-01T11:30:00+02:00',
      start_date: null,
      status: 'confirmed',
      recurrence: null,
      excluded_dates: [],
      attendees: [],
    });
    const row = await h.db
      .selectFrom('calendar_events')
      .selectAll()
      .where('id', '=', res.body.calendar_event.id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({
      starts_at: '2026-07-01T08:00:00.000Z',
      ends_at: '2026-07-01T09:30:00.000Z',
      recurring: 0,
    });
    expect(await eventsOf(res.body.request_id)).toEqual(['calendar_event.created']);
    expect((await get(`/v1/calendar/events/${res.body.calendar_event.id}`)).body.calendar_event).toEqual(
      res.body.calendar_event,
    );
  });

  it('creates all-day events with inclusive end dates', async () => {
    const res = await event({
      all_day: true,
      start_date: '2026-08-10',
      end_date: '2026-08-12',
      title: 'Offsite',
    });
    expect(res.body.calendar_event).toMatchObject({
      all_day: true,
      start_date: '2026-08-10',
      end_date: '2026-08-12',
      starts_at: '2026-08-10T00:00:00+02:00',
      ends_at: '2026-08-13T00:00:00+02:00',
    });
    const single = await event({ all_day: true, start_date: '2026-08-20' });
    expect(single.body.calendar_event.end_date).toBe('2026-08-20');
  });

  it('rejects invalid timing, zones, rules and attendees with field errors, writing nothing', async () => {
    const before = await h.db
      .selectFrom('calendar_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    const cases: [Record<string, unknown>, string[]][] = [
      [{ starts_at: '2026-07-01T10:00:00Z', ends_at: '2026-07-01T09:00:00Z' }, ['ends_at']],
      [{ starts_at: '2026-07-01T10:00:00Z', ends_at: '2026-07-01T10:00:00Z' }, ['ends_at']],
      [{ starts_at: '2026-07-01T10:00:00', ends_at: '2026-07-01T11:00:00Z' }, ['starts_at']],
      [{ starts_at: '2026-07-01T10:00:00Z' }, ['ends_at']],
      [{}, ['starts_at', 'ends_at']],
      [{ all_day: true }, ['start_date']],
      [{ all_day: true, start_date: '2026-07-02', end_date: '2026-07-01' }, ['end_date']],
      [{ all_day: true, start_date: '2026-07-02', starts_at: '2026-07-01T10:00:00Z' }, ['starts_at']],
      [
        { start_date: '2026-07-02', starts_at: '2026-07-01T10:00:00Z', ends_at: '2026-07-01T11:00:00Z' },
        ['start_date'],
      ],
      [
        { starts_at: '2026-07-01T10:00:00Z', ends_at: '2026-07-01T11:00:00Z', timezone: 'Europe/Atlantis' },
        ['timezone'],
      ],
      [
        { starts_at: '2026-07-01T10:00:00Z', ends_at: '2026-07-01T11:00:00Z', recurrence: 'FREQ=HOURLY' },
        ['recurrence'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          recurrence: 'FREQ=WEEKLY;BYDAY=XX',
        },
        ['recurrence'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          recurrence: 'FREQ=WEEKLY;BYDAY=MO',
        },
        ['recurrence'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          recurrence: 'FREQ=DAILY;UNTIL=20260601',
        },
        ['recurrence'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          recurrence: 'FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30',
        },
        ['recurrence'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          excluded_dates: ['2026-07-08'],
        },
        ['excluded_dates'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          attendees: [{ name: 'No address' }],
        },
        ['attendees[0]'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          attendees: [{ email: 'a@x.io' }, { email: 'A@x.io' }],
        },
        ['attendees[1]'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          attendees: [{ email: 'a@x.io', response: 'maybe' }],
        },
        ['attendees[0].response'],
      ],
      [
        {
          starts_at: '2026-07-01T10:00:00Z',
          ends_at: '2026-07-01T11:00:00Z',
          related_resource_type: 'project_task',
        },
        ['related_resource_id'],
      ],
    ];
    for (const [body, fields] of cases) {
      const res = await event(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(fieldsOf(res), JSON.stringify(body)).toEqual(fields);
    }
    const after = await h.db
      .selectFrom('calendar_events')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });

  it('stores attendees from contacts and links related records that exist', async () => {
    const contact = (await post('/v1/contacts', { name: 'Ada Lovelace', email: 'Ada@Example.com' })).body
      .contact;
    const project = (await post('/v1/projects', { name: 'Cal', key: 'CAL' })).body.project;
    const task = (await post('/v1/projects/tasks', { project_id: project.id, title: 'Review' })).body
      .project_task;
    const res = await event({
      starts_at: '2026-07-02T10:00:00+02:00',
      ends_at: '2026-07-02T11:00:00+02:00',
      attendees: [
        { contact_id: contact.id, response: 'accepted' },
        { email: 'bob@example.com', name: 'Bob' },
      ],
      related_resource_type: 'project_task',
      related_resource_id: task.id,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.calendar_event.attendees).toEqual([
      { email: 'ada@example.com', contact_id: contact.id, name: 'Ada Lovelace', response: 'accepted' },
      { email: 'bob@example.com', contact_id: null, name: 'Bob', response: 'needs_action' },
    ]);
    const related = await get(
      `/v1/calendar/events?related_resource_type=project_task&related_resource_id=${task.id}`,
    );
    expect(related.body.calendar_events.map((e: any) => e.id)).toEqual([res.body.calendar_event.id]);
    const missing = await event({
      starts_at: '2026-07-02T10:00:00Z',
      ends_at: '2026-07-02T11:00:00Z',
      related_resource_type: 'project_task',
      related_resource_id: 'ptk_nope',
    });
    expect(missing.status).toBe(404);
    expect(
      (
        await event({
          starts_at: '2026-07-02T10:00:00Z',
          ends_at: '2026-07-02T11:00:00Z',
          attendees: [{ contact_id: 'cnt_nope' }],
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await post('/v1/calendar/events', {
          calendar_id: 'cal_nope',
          title: 'x',
          starts_at: '2026-07-02T10:00:00Z',
          ends_at: '2026-07-02T11:00:00Z',
        })
      ).status,
    ).toBe(404);
  });

  it('updates: moving keeps the length, timezone changes keep instants, cancel emits canceled', async () => {
    const created = (
      await event({
        starts_at: '2026-09-01T09:00:00+02:00',
        ends_at: '2026-09-01T10:30:00+02:00',
        description: 'x',
      })
    ).body.calendar_event;
    const url = `/v1/calendar/events/${created.id}`;
    const moved = await patch(url, { starts_at: '2026-09-02T14:00:00+02:00', description: null });
    expect(moved.body.calendar_event).toMatchObject({
      starts_at: '2026-09-02T14:00:00+02:00',
      ends_at: '2026-09-02T15:30:00+02:00',
      description: null,
    });
    expect(await eventsOf(moved.body.request_id)).toEqual(['calendar_event.updated']);
    const audit = await h.db
      .selectFrom('audit_events')
      .select('changed_fields')
      .where('request_id', '=', moved.body.request_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.changed_fields).sort()).toEqual(['description', 'ends_at', 'starts_at']);
    const zoned = await patch(url, { timezone: 'America/New_York' });
    expect(zoned.body.calendar_event).toMatchObject({
      timezone: 'America/New_York',
      starts_at: '2026-09-02T08:00:00-04:00',
    });
    expect(fieldsOf(await patch(url, { ends_at: '2026-09-02T07:00:00-04:00' }))).toEqual(['ends_at']);
    const allDay = await patch(url, { all_day: true, start_date: '2026-09-03' });
    expect(allDay.body.calendar_event).toMatchObject({
      all_day: true,
      start_date: '2026-09-03',
      end_date: '2026-09-03',
    });
    const timedAgain = await patch(url, {
      all_day: false,
      starts_at: '2026-09-04T10:00:00Z',
      ends_at: '2026-09-04T11:00:00Z',
    });
    expect(timedAgain.body.calendar_event).toMatchObject({
      all_day: false,
      start_date: null,
      starts_at: '2026-09-04T06:00:00-04:00',
    });
    const canceled = await patch(url, { status: 'canceled' });
    expect(await eventsOf(canceled.body.request_id)).toEqual(['calendar_event.canceled']);
    const other = (await post('/v1/calendar/calendars', { name: 'Other' })).body.calendar;
    const transferred = await h.callTool(ws.mcpToken, 'update_calendar_event', {
      event_id: created.id,
      calendar_id: other.id,
    });
    expect(transferred.body.calendar_event.calendar_id).toBe(other.id);
    expect((await patch(url, { calendar_id: 'cal_nope' })).status).toBe(404);
    expect((await patch('/v1/calendar/events/cev_nope', { title: 'x' })).status).toBe(404);
    expect((await patch(url, {})).status).toBe(400);
  });

  it('lists events without a window (newest first) and validates windows', async () => {
    const list = await get(`/v1/calendar/events?calendar_id=${calendarId}&limit=2`);
    expect(list.body.calendar_events).toHaveLength(2);
    expect(list.body.calendar_events[0].id > list.body.calendar_events[1].id).toBe(true);
    expect(list.body.next_cursor).toBeDefined();
    expect(fieldsOf(await get('/v1/calendar/events?from=2026-01-01T00:00:00Z'))).toEqual(['to']);
    expect(fieldsOf(await get('/v1/calendar/events?to=2026-01-01T00:00:00Z'))).toEqual(['from']);
    expect(
      fieldsOf(await get('/v1/calendar/events?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z')),
    ).toEqual(['to']);
    expect(
      fieldsOf(await get('/v1/calendar/events?from=2026-01-01T00:00:00Z&to=2027-01-03T00:00:00Z')),
    ).toEqual(['to']);
    expect((await get('/v1/calendar/events?from=2026-01-01T00:00:00Z&to=2027-01-02T00:00:00Z')).status).toBe(
      200,
    );
    const mcp = await h.callTool(ws.mcpToken, 'list_calendar_events', {
      calendar_id: calendarId,
      query: 'offsite',
    });
    expect(mcp.body.calendar_events.map((e: any) => e.title)).toEqual(['Offsite']);
  });
});
