// Idempotent creates (replay and conflict) and tenant isolation (404 on every ID) for the calendar module.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let owner: TestWorkspace;
let stranger: TestWorkspace;
const ids: Record<string, string> = {};
const timing = { starts_at: '2026-12-01T10:00:00Z', ends_at: '2026-12-01T11:00:00Z' };

beforeAll(async () => {
  h = await Harness.start();
  owner = await h.workspace('Owner');
  stranger = await h.workspace('Stranger');
  const post = async (url: string, body: unknown) =>
    (await h.request('POST', url, { token: owner.apiKey, body })).body;
  ids.calendar = (await post('/v1/calendar/calendars', { name: 'Owner calendar' })).calendar.id;
  ids.event = (
    await post('/v1/calendar/events', { calendar_id: ids.calendar, title: 'Owner event', ...timing })
  ).calendar_event.id;
  ids.contact = (await post('/v1/contacts', { name: 'Owner contact', email: 'c@owner.test' })).contact.id;
  const project = (await post('/v1/projects', { name: 'Owner project', key: 'OWN' })).project.id;
  ids.task = (await post('/v1/projects/tasks', { project_id: project, title: 'Owner task' })).project_task.id;
});
afterAll(() => h.close());

describe('idempotent creates', () => {
  it('replay the first record and answer 409 for another input, on every create', async () => {
    const creates: [string, string, string, Record<string, unknown>, Record<string, unknown>][] = [
      [
        '/v1/calendar/calendars',
        'calendar',
        'calendars',
        { name: 'Idem', timezone: 'Europe/Paris' },
        { timezone: 'Europe/Rome' },
      ],
      [
        '/v1/calendar/events',
        'calendar_event',
        'calendar_events',
        { calendar_id: ids.calendar, title: 'Idem', ...timing, recurrence: 'FREQ=DAILY;COUNT=3' },
        { recurrence: 'FREQ=DAILY;COUNT=4' },
      ],
    ];
    for (const [url, key, table, body, change] of creates) {
      const count = async () =>
        Number(
          (
            await h.db
              .selectFrom(table as 'calendars')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('workspace_id', '=', owner.id)
              .executeTakeFirstOrThrow()
          ).n,
        );
      const first = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, idempotency_key: `idem-${key}` },
      });
      expect(first.status, `${url} ${first.text}`).toBe(201);
      const before = await count();
      const replay = await h.callTool(owner.mcpToken, `create_${key}`, {
        ...body,
        idempotency_key: `idem-${key}`,
      });
      expect(replay.body[key], url).toEqual(first.body[key]);
      const again = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, idempotency_key: `idem-${key}` },
      });
      expect(again.status).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      const conflict = await h.request('POST', url, {
        token: owner.apiKey,
        body: { ...body, ...change, idempotency_key: `idem-${key}` },
      });
      expect(conflict.status, url).toBe(409);
      expect(conflict.body.error).toMatchObject({
        code: 'idempotency_conflict',
        idempotency_key: `idem-${key}`,
      });
      expect(await count(), url).toBe(before);
    }
  });
});

describe('a second workspace', () => {
  it('gets 404 reading every record of the first, and its feed', async () => {
    for (const path of [
      `/v1/calendar/calendars/${ids.calendar}`,
      `/v1/calendar/events/${ids.event}`,
      `/v1/calendar/calendars/${ids.calendar}/ics`,
    ]) {
      expect((await h.request('GET', path, { token: owner.apiKey })).status, path).toBe(200);
      const foreign = await h.request('GET', path, { token: stranger.apiKey });
      expect(foreign.status, path).toBe(404);
      expect(foreign.body.error.code).toBe('resource_not_found');
    }
  });

  it('gets 404 updating or referencing them, and changes nothing', async () => {
    const mine = (
      await h.request('POST', '/v1/calendar/calendars', { token: stranger.apiKey, body: { name: 'Mine' } })
    ).body.calendar;
    const writes: [string, string, Record<string, unknown>][] = [
      ['PATCH', `/v1/calendar/calendars/${ids.calendar}`, { name: 'Hijack' }],
      ['PATCH', `/v1/calendar/events/${ids.event}`, { title: 'Hijack' }],
      ['POST', '/v1/calendar/events', { calendar_id: ids.calendar, title: 'x', ...timing }],
      [
        'POST',
        '/v1/calendar/events',
        { calendar_id: mine.id, title: 'x', ...timing, attendees: [{ contact_id: ids.contact }] },
      ],
      [
        'POST',
        '/v1/calendar/events',
        {
          calendar_id: mine.id,
          title: 'x',
          ...timing,
          related_resource_type: 'project_task',
          related_resource_id: ids.task,
        },
      ],
      [
        'POST',
        '/v1/calendar/events',
        {
          calendar_id: mine.id,
          title: 'x',
          ...timing,
          related_resource_type: 'contact',
          related_resource_id: ids.contact,
        },
      ],
    ];
    for (const [method, url, body] of writes) {
      const res = await h.request(method, url, { token: stranger.apiKey, body });
      expect(res.status, `${method} ${url} ${JSON.stringify(body)}`).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    const event = (
      await h.request('POST', '/v1/calendar/events', {
        token: stranger.apiKey,
        body: { calendar_id: mine.id, title: 'mine', ...timing },
      })
    ).body.calendar_event;
    expect(
      (
        await h.request('PATCH', `/v1/calendar/events/${event.id}`, {
          token: stranger.apiKey,
          body: { calendar_id: ids.calendar },
        })
      ).status,
    ).toBe(404);
    const mcp = await h.callTool(stranger.mcpToken, 'update_calendar_event', {
      event_id: ids.event,
      status: 'canceled',
    });
    expect(mcp.body.error.code).toBe('resource_not_found');
    const row = await h.db
      .selectFrom('calendar_events')
      .selectAll()
      .where('id', '=', ids.event)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ title: 'Owner event', status: 'confirmed' });
  });

  it('sees none of them in lists, windows or its summary', async () => {
    for (const url of [
      '/v1/calendar/calendars',
      '/v1/calendar/events',
      `/v1/calendar/events?calendar_id=${ids.calendar}&from=2026-11-01T00:00:00Z&to=2026-12-31T00:00:00Z`,
    ]) {
      const res = await h.request('GET', url, { token: stranger.apiKey });
      const key = Object.keys(res.body).find((k) => k !== 'request_id')!;
      expect(
        res.body[key].filter((r: any) => Object.values(ids).includes(r.id ?? r.event_id)),
        url,
      ).toEqual([]);
    }
    const summary = await h.request('GET', '/v1/workspace', { token: stranger.apiKey });
    expect(summary.body.workspace.summary.calendar).toEqual({ calendars: 1, upcoming_events: 0 });
  });
});
