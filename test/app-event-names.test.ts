// Event names: ingest takes any name of 1 to 200 printable characters (pageview, $pageview), from API keys
// and site keys; with validation on (warn, enforce) a workspace is still held to defined, dotted names.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const URL = '/v1/insights/app-events';
const ORIGIN = 'https://shop.example.com';
let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const event = (event_name: string, n = 1) => ({
  app: 'shop',
  event_name,
  object_type: 'page',
  object_id: `/p/${n}`,
});
const namesIn = async (workspaceId: string) =>
  (await h.db.selectFrom('app_events').select('event_name').where('workspace_id', '=', workspaceId).execute())
    .map((r) => r.event_name)
    .sort();

const ACCEPTED = [
  'pageview',
  '$pageview',
  'Page View',
  'checkout-step:2',
  'Bestellung.erstellt',
  '页面浏览',
  'x'.repeat(200),
];
const REFUSED = [
  '',
  'x'.repeat(201),
  'line\nbreak',
  'tab\there',
  'bell\u0007',
  'next\u0085line',
  '\u202Egnp.exe',
];

describe(`event names (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('accepts any printable name of 1 to 200 characters and refuses the others by index', async () => {
    const own = await h.workspace('Names');
    const res = await call(
      'POST',
      URL,
      { events: [...ACCEPTED, ...REFUSED].map((name, i) => event(name, i)) },
      own.apiKey,
    );
    expect(res.status, res.text).toBe(202);
    expect(res.body.accepted).toBe(ACCEPTED.length);
    expect(
      res.body.rejected.map((r: { index: number; field_errors: { field: string }[] }) => [
        r.index,
        r.field_errors[0]!.field,
      ]),
    ).toEqual(REFUSED.map((_, i) => [ACCEPTED.length + i, 'event_name']));
    expect(await namesIn(own.id)).toEqual([...ACCEPTED].sort());
    // A single event named pageview, and object analytics filtered by $pageview.
    expect((await call('POST', URL, event('pageview', 9), own.apiKey)).status).toBe(202);
    const objects = await call(
      'GET',
      `${URL}?app=shop&window=24h&event_name=%24pageview`,
      undefined,
      own.apiKey,
    );
    expect(objects.status, objects.text).toBe(200);
    expect(objects.body.objects).toMatchObject([{ object_id: '/p/1', events: 1 }]);
  });

  it('takes pageview from a site key', async () => {
    const site = await call('POST', '/v1/insights/sites', { name: 'Shop', allowed_origins: [ORIGIN] });
    expect(site.status, site.text).toBe(201);
    const res = await h.request('POST', `${URL}?site_key=${site.body.analytics_site.site_key}`, {
      headers: { origin: ORIGIN, 'content-type': 'text/plain' },
      rawBody: JSON.stringify(event('pageview')),
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ accepted: 1, rejected: [] });
  });

  it('holds a workspace to defined, dotted names under warn and enforce', async () => {
    const own = await h.workspace('Governed');
    const as = (method: string, url: string, body?: unknown) => call(method, url, body, own.apiKey);
    expect((await as('POST', '/v1/analytics/events', { app: 'shop', name: 'page.viewed' })).status).toBe(201);
    // Definitions (and so tracking plans) take dotted names only.
    const undotted = await as('POST', '/v1/analytics/events', { app: 'shop', name: 'pageview' });
    expect(undotted.status).toBe(400);
    expect(undotted.body.error.field_errors[0].field).toBe('name');
    const plan = await as('POST', '/v1/analytics/tracking-plans', {
      name: 'Web',
      app: 'shop',
      events: ['page.viewed'],
      status: 'active',
    });
    expect(plan.status, plan.text).toBe(201);

    const notDotted = expect.stringContaining('is not a dotted name');
    await as('PATCH', `${URL}/settings`, { validation_mode: 'warn' });
    const warned = await as('POST', URL, { events: [event('page.viewed'), event('pageview', 2)] });
    expect(warned.body).toMatchObject({ accepted: 2, rejected: [] });
    const rows = await h.db
      .selectFrom('app_events')
      .select(['event_name', 'warnings'])
      .where('workspace_id', '=', own.id)
      .execute();
    const warnings = (name: string) => rows.find((r) => r.event_name === name)!.warnings;
    expect(warnings('page.viewed')).toBeNull();
    expect(JSON.parse(warnings('pageview')!)).toEqual([{ field: 'event_name', message: notDotted }]);

    await as('PATCH', `${URL}/settings`, { validation_mode: 'enforce' });
    const enforced = await as('POST', URL, { events: [event('page.viewed', 3), event('$pageview', 4)] });
    expect(enforced.body).toMatchObject({
      accepted: 1,
      rejected: [{ index: 1, field_errors: [{ field: 'event_name', message: notDotted }] }],
    });
    // A dotted name outside the definitions keeps its own message.
    const unknown = await as('POST', URL, event('page.left', 5));
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field_errors[0].message).toBe('is not a defined event of app shop');
    // validate_event says the same.
    const validated = await as('POST', '/v1/analytics/events/validate', event('$pageview'));
    expect(validated.body).toMatchObject({
      valid: false,
      errors: [{ field: 'event_name', message: notDotted }],
    });
  });
});
