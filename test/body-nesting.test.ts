// Deeply nested JSON is a 400 validation_failed, never a 500 with a stack overflow: a JSON body (REST, the
// operator API, public ingest) nests at most 64 levels, an MCP tool's arguments too (their message two
// levels more), and app-event properties at most 5. Nothing is stored for a refused body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type HttpResult, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
const ORIGIN = 'https://shop.example.com';

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
});
afterAll(() => h.close());

/** JSON text of `levels` objects nested in one another ({"a": {"a": ... 1}}), built as text (no recursion). */
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** An app event (also validate_event's body) whose properties nest `levels` levels (the event: one more). */
const eventBody = (levels: number) =>
  `{"app":"shop","event_name":"order.created","object_type":"order","object_id":"o1","properties":${nested(levels)}}`;

function expectTooDeep(res: HttpResult, field: string) {
  expect(res.status, res.text).toBe(400);
  expect(res.body.error.code).toBe('validation_failed');
  expect(res.body.error.field_errors).toEqual([
    { field, message: expect.stringContaining('at most 64 levels') },
  ]);
}

const storedEvents = async () =>
  (await h.db.selectFrom('app_events').select('id').where('workspace_id', '=', ws.id).execute()).length;

describe(`JSON nesting limits (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('REST: a body of 64 levels is read, 65 and 10,000 levels are validation_failed naming the field', async () => {
    const post = (rawBody: string) =>
      h.request('POST', '/v1/analytics/events/validate', { token: ws.apiKey, rawBody });
    const within = await post(eventBody(63));
    expect(within.status, within.text).toBe(200);
    expectTooDeep(await post(eventBody(64)), 'properties.a.a');
    expectTooDeep(await post(eventBody(10_000)), 'properties.a.a');
    // Anywhere in the body, arrays too.
    const arrays = await h.request('POST', '/v1/contacts', {
      token: ws.apiKey,
      rawBody: `{"name":"Ada","custom_fields":{"x":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
    });
    expectTooDeep(arrays, 'custom_fields.x[0]');
    const bare = await post(`${'['.repeat(10_000)}${']'.repeat(10_000)}`);
    expectTooDeep(bare, '[0][0][0]');
    // Still after authentication, like malformed JSON.
    const anonymous = await h.request('POST', '/v1/analytics/events/validate', {
      rawBody: eventBody(10_000),
    });
    expect(anonymous.status).toBe(401);
  });

  it('MCP: tool arguments of 64 levels are read; deeper ones are -32600 with validation_failed', async () => {
    const call = (levels: number) =>
      h.request('POST', '/mcp', {
        token: ws.mcpToken,
        rawBody: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"validate_event","arguments":${eventBody(levels)}}}`,
      });
    const within = await call(63);
    expect(within.status, within.text).toBe(200);
    expect(within.body.result.isError).toBeFalsy();
    expect(within.body.result.structuredContent.valid).toBe(false);
    for (const levels of [64, 10_000]) {
      const refused = await call(levels);
      expect(refused.status, refused.text).toBe(400);
      expect(refused.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
      expect(refused.body.error.data.error.code).toBe('validation_failed');
      expect(refused.body.error.data.error.field_errors).toEqual([
        { field: 'params.arguments.properties', message: expect.stringContaining('at most 64 levels') },
      ]);
    }
    // A message deep elsewhere is refused the same way, whatever its method.
    const ping = await h.request('POST', '/mcp', {
      token: ws.mcpToken,
      rawBody: `{"jsonrpc":"2.0","id":1,"method":"ping","params":${nested(10_000)}}`,
    });
    expect(ping.status).toBe(400);
    expect(ping.body.error.data.error.field_errors[0].field).toBe('params.a.a');
  });

  it('the operator API refuses a body nested 10,000 levels', async () => {
    const res = await h.request('PATCH', `/admin/v1/workspaces/${ws.id}`, {
      token: 'wos_op_test-operator-token-0123456789abcdefghijklmnopq',
      rawBody: `{"name":${nested(10_000)}}`,
    });
    expectTooDeep(res, 'name.a.a');
  });

  it('app-event ingest: properties 3,000 deep are validation_failed with an API key and a site key', async () => {
    const byKey = await h.request('POST', '/v1/insights/app-events', {
      token: ws.apiKey,
      rawBody: eventBody(3000),
    });
    expectTooDeep(byKey, 'properties.a.a');
    const batch = await h.request('POST', '/v1/insights/app-events', {
      token: ws.apiKey,
      rawBody: `{"events":[${eventBody(1)},${eventBody(3000)}]}`,
    });
    expectTooDeep(batch, 'events[1].properties');

    const site = await h.request('POST', '/v1/insights/sites', {
      token: ws.apiKey,
      body: { name: 'Shop', allowed_origins: [ORIGIN] },
    });
    expect(site.status, site.text).toBe(201);
    const path = `/v1/insights/app-events?site_key=${site.body.analytics_site.site_key}`;
    for (const contentType of ['application/json', 'text/plain']) {
      const public_ = await h.request('POST', path, {
        headers: { origin: ORIGIN, 'content-type': contentType },
        rawBody: eventBody(3000),
      });
      expectTooDeep(public_, 'properties.a.a');
    }
    // Within the body limit, properties keep their own limit of 5 levels, event by event.
    const six = await h.request('POST', path, {
      headers: { origin: ORIGIN },
      rawBody: `{"events":[${eventBody(5)},${eventBody(6)}]}`,
    });
    expect(six.status, six.text).toBe(202);
    expect(six.body).toMatchObject({
      accepted: 1,
      rejected: [
        { index: 1, field_errors: [{ field: 'properties', message: 'must be nested at most 5 levels' }] },
      ],
    });
    expect(await storedEvents()).toBe(1);
  });
});
