// Webhooks through the real server and worker, against a local receiver that verifies every signature.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace } from './helpers/harness.ts';
import { type Received, type Receiver, startReceiver } from './helpers/webhook-receiver.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let receiver: Receiver;
const clock = new MutableClock(new Date());

beforeAll(async () => {
  receiver = await startReceiver();
  // The local receiver listens on a random port, which the operator must allow.
  const env = {
    WOS_WORKER: 'on',
    WOS_WORKER_POLL_MS: '20',
    WOS_WEBHOOK_ALLOW_PRIVATE: 'true',
    WOS_OUTBOUND_ALLOWED_PORTS: new URL(receiver.url).port,
  };
  h = await Harness.start({ clock, env });
  ws = await h.workspace();
  other = await h.workspace('Other');
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.respond({ status: 200, body: 'thanks' });
});

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const createEndpoint = async (eventTypes: string[], path = '/hooks') => {
  const res = await call('POST', '/v1/webhooks', { url: `${receiver.url}${path}`, event_types: eventTypes });
  expect(res.status).toBe(201);
  return res.body.webhook as { id: string; secret: string };
};
const deliveries = async (webhookId: string, query = '') =>
  (await call('GET', `/v1/webhooks/${webhookId}/deliveries${query}`)).body.deliveries;
const waitForRequests = (n: number, path?: string) =>
  vi.waitFor(
    () => {
      const got = receiver.received.filter((r) => !path || r.path === path);
      if (got.length < n) throw new Error(`received ${got.length} of ${n}`);
      return got;
    },
    { timeout: 8000, interval: 20 },
  );
const waitForDelivery = (webhookId: string, check: (d: any) => boolean) =>
  vi.waitFor(
    async () => {
      const list = await deliveries(webhookId);
      if (!list.length || !check(list[0]))
        throw new Error(`delivery not there yet: ${JSON.stringify(list[0])}`);
      return list[0];
    },
    { timeout: 8000, interval: 25 },
  );
const verify = (secret: string, request: Received) =>
  new Webhook(secret).verify(request.text, request.headers as Record<string, string>);

/** The whole catalogue, read page by page (it holds more event types than the largest page). */
async function catalogue(limit: number): Promise<any[]> {
  const types: any[] = [];
  let cursor: string | undefined;
  do {
    const res = await call(
      'GET',
      `/v1/integrations/events?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`,
    );
    expect(res.status).toBe(200);
    types.push(...res.body.event_types);
    cursor = res.body.next_cursor;
  } while (cursor);
  return types;
}

describe('integration event catalogue', () => {
  it("lists every declared domain event and the workspace's custom types, by key", async () => {
    const types = await catalogue(100);
    const keys = types.map((t) => t.key);
    for (const key of ['contact.created', 'task.completed', 'webhook.test', 'webhook_endpoint.created'])
      expect(keys).toContain(key);
    expect(keys).toEqual([...keys].sort());
    const test = types.find((t) => t.key === 'webhook.test');
    expect(test).toMatchObject({ source: 'builtin', schema: { type: 'object' } });
    expect(test.description.length).toBeGreaterThan(10);

    const registered = await call('POST', '/v1/integrations/events', {
      key: 'order.shipped',
      description: 'An order left the warehouse.',
      schema: { type: 'object', properties: { order_id: { type: 'string' } } },
      idempotency_key: 'reg-1',
    });
    expect(registered.status).toBe(201);
    expect(registered.body.event_type).toMatchObject({
      key: 'order.shipped',
      source: 'custom',
      id: expect.stringMatching(/^iet_/),
    });
    const replay = await call('POST', '/v1/integrations/events', {
      key: 'order.shipped',
      description: 'An order left the warehouse.',
      schema: { type: 'object', properties: { order_id: { type: 'string' } } },
      idempotency_key: 'reg-1',
    });
    expect(replay.status).toBe(200);
    expect(replay.body.event_type.id).toBe(registered.body.event_type.id);
    const conflict = await call('POST', '/v1/integrations/events', {
      key: 'order.packed',
      description: 'x',
      idempotency_key: 'reg-1',
    });
    expect(conflict.status).toBe(409);

    const custom = await h.callTool(ws.mcpToken, 'list_integration_event_types', { source: 'custom' });
    expect(custom.body.event_types.map((t: any) => t.key)).toEqual(['order.shipped']);
    const elsewhere = await call('GET', '/v1/integrations/events?source=custom', undefined, other.apiKey);
    expect(elsewhere.body.event_types).toEqual([]);
    const lookup = await call(
      'GET',
      `/v1/integrations/events/${registered.body.event_type.id}`,
      undefined,
      other.apiKey,
    );
    expect(lookup.status).toBe(404);
  });

  it('pages through the catalogue with a cursor and rejects bad custom types', async () => {
    const seen = (await catalogue(3)).map((t) => t.key);
    const all = (await catalogue(100)).map((t) => t.key);
    expect(seen).toEqual(all);
    expect(all.length).toBeGreaterThan(100);

    const cases = [
      [{ key: 'contact.created', description: 'dup of builtin' }, 'key'],
      [{ key: 'order.shipped', description: 'again' }, 'key'],
      [{ key: 'NotDotted', description: 'bad key' }, 'key'],
      [{ key: 'order.lost', description: 'bad schema', schema: { type: 'nonsense' } }, 'schema'],
    ] as const;
    for (const [body, field] of cases) {
      const res = await call('POST', '/v1/integrations/events', body);
      expect(res.status).toBe(400);
      expect(res.body.error.field_errors[0].field).toBe(field);
    }
  });
});

describe('webhook endpoints', () => {
  it('shows the secret only on create, stores it encrypted, and replays idempotent creates', async () => {
    const body = { url: `${receiver.url}/a`, event_types: ['contact.created'], idempotency_key: 'ep-1' };
    const created = await call('POST', '/v1/webhooks', body);
    expect(created.status).toBe(201);
    const webhook = created.body.webhook;
    expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const replay = await call('POST', '/v1/webhooks', body);
    expect(replay.status).toBe(200);
    expect(replay.body.webhook).toMatchObject({ id: webhook.id, secret: webhook.secret });
    expect((await call('POST', '/v1/webhooks', { ...body, description: 'changed' })).status).toBe(409);

    const listed = (await call('GET', '/v1/webhooks')).body.webhooks.find((w: any) => w.id === webhook.id);
    expect(listed).toBeDefined();
    expect(listed.secret).toBeUndefined();
    expect((await call('GET', `/v1/webhooks/${webhook.id}`)).body.webhook.secret).toBeUndefined();
    const row = await h.db
      .selectFrom('webhook_endpoints')
      .selectAll()
      .where('id', '=', webhook.id)
      .executeTakeFirstOrThrow();
    expect(row.secret).not.toContain(webhook.secret.slice(6));
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', webhook.id)
      .execute();
    expect(JSON.stringify(audit)).not.toContain(webhook.secret.slice(6));

    const mcp = await h.callTool(ws.mcpToken, 'create_webhook_endpoint', {
      url: `${receiver.url}/m`,
      event_types: ['*'],
    });
    expect(mcp.body.webhook.secret).toMatch(/^whsec_/);
  });

  it('validates event types and urls', async () => {
    const unknown = await call('POST', '/v1/webhooks', {
      url: `${receiver.url}/x`,
      event_types: ['contact.created', 'nope.never'],
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.field_errors).toEqual([
      { field: 'event_types[1]', message: 'nope.never is not in the event catalogue' },
    ]);
    const star = await call('POST', '/v1/webhooks', {
      url: `${receiver.url}/x`,
      event_types: ['*', 'contact.created'],
    });
    expect(star.status).toBe(400);
    const ftp = await call('POST', '/v1/webhooks', { url: 'ftp://example.com/x', event_types: ['*'] });
    expect(ftp.body.error.field_errors[0]).toMatchObject({ field: 'url', message: 'must use http or https' });
    const custom = await call('POST', '/v1/webhooks', {
      url: `${receiver.url}/x`,
      event_types: ['order.shipped'],
    });
    expect(custom.status).toBe(201);
    const before = await h.db.selectFrom('webhook_endpoints').select('id').execute();
    await call('POST', '/v1/webhooks', { url: `${receiver.url}/x`, event_types: [] });
    expect(await h.db.selectFrom('webhook_endpoints').select('id').execute()).toHaveLength(before.length);
  });

  it("answers 404 for another workspace's endpoint on every route", async () => {
    const mine = await createEndpoint(['task.created']);
    const token = other.apiKey;
    expect((await call('GET', `/v1/webhooks/${mine.id}`, undefined, token)).status).toBe(404);
    expect((await call('PATCH', `/v1/webhooks/${mine.id}`, { status: 'disabled' }, token)).status).toBe(404);
    expect((await call('POST', `/v1/webhooks/${mine.id}/test`, {}, token)).status).toBe(404);
    expect((await call('GET', `/v1/webhooks/${mine.id}/deliveries`, undefined, token)).status).toBe(404);
    const mcp = await h.callTool(other.mcpToken, 'update_webhook_endpoint', {
      webhook_id: mine.id,
      rotate_secret: true,
    });
    expect(mcp.result.isError).toBe(true);
    expect((await call('GET', `/v1/webhooks/${mine.id}`)).body.webhook.status).toBe('active');
  });
});

describe('deliveries', () => {
  it('delivers a domain event as a signed JSON POST and records the attempt', async () => {
    const endpoint = await createEndpoint(['contact.created'], '/contacts');
    const contact = (await call('POST', '/v1/contacts', { name: 'Ada' })).body.contact;
    await call('POST', '/v1/tasks', { title: 'not subscribed' });
    const [request] = await waitForRequests(1, '/contacts');
    const payload = verify(endpoint.secret, request!) as any;
    expect(payload).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'contact.created',
      created_at: clock.now().toISOString(),
      workspace_id: ws.id,
      data: contact,
    });
    expect(request!.headers['webhook-id']).toBe(payload.id);
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const delivery = await waitForDelivery(endpoint.id, (d) => d.status === 'succeeded');
    expect(delivery).toMatchObject({
      event_type: 'contact.created',
      event_id: payload.id,
      attempt_count: 1,
      last_status_code: 200,
    });
    expect(delivery.attempts).toEqual([
      expect.objectContaining({
        attempt: 1,
        status_code: 200,
        error: null,
        response_excerpt: 'thanks',
        next_attempt_at: null,
      }),
    ]);
    expect(await deliveries(endpoint.id)).toHaveLength(1);
  });

  it('retries failures on the schedule of the injected clock, keeping the webhook-id', async () => {
    receiver.respond({ status: 500, body: 'boom' });
    const endpoint = await createEndpoint(['task.created'], '/retry');
    await call('POST', '/v1/tasks', { title: 'retry me' });
    await waitForRequests(1, '/retry');
    const first = await waitForDelivery(endpoint.id, (d) => d.attempt_count === 1);
    const start = Date.parse(first.attempts[0].attempted_at);
    const next = Date.parse(first.next_attempt_at);
    expect(first).toMatchObject({
      status: 'pending',
      last_status_code: 500,
      last_error: 'the endpoint answered 500',
    });
    expect(next - start).toBeGreaterThanOrEqual(5000);
    expect(next - start).toBeLessThanOrEqual(5500);

    clock.advance(4000);
    await h.worker!.tick();
    await h.worker!.tick();
    expect(receiver.received.filter((r) => r.path === '/retry')).toHaveLength(1);

    receiver.respond({ status: 200 });
    clock.advance(1600);
    const [a, b] = await waitForRequests(2, '/retry');
    expect(b!.headers['webhook-id']).toBe(a!.headers['webhook-id']);
    verify(endpoint.secret, b!);
    const done = await waitForDelivery(endpoint.id, (d) => d.status === 'succeeded');
    expect(done.attempts.map((x: any) => x.status_code)).toEqual([500, 200]);
    expect(done.attempts[0].next_attempt_at).toBe(first.next_attempt_at);
  });

  it('honours Retry-After and backs off to the second step', async () => {
    receiver.respond({ status: 503, headers: { 'retry-after': '3600' } });
    const endpoint = await createEndpoint(['task.completed'], '/later');
    const task = (await call('POST', '/v1/tasks', { title: 'later' })).body.task;
    await call('PATCH', `/v1/tasks/${task.id}`, { status: 'completed' });
    const first = await waitForDelivery(endpoint.id, (d) => d.attempt_count === 1);
    expect(
      Date.parse(first.next_attempt_at) - Date.parse(first.attempts[0].attempted_at),
    ).toBeGreaterThanOrEqual(3_600_000);

    receiver.respond({ status: 502 });
    clock.advance(3_600_000);
    const second = await waitForDelivery(endpoint.id, (d) => d.attempt_count === 2);
    const wait = Date.parse(second.next_attempt_at) - Date.parse(second.attempts[1].attempted_at);
    expect(wait).toBeGreaterThanOrEqual(300_000);
    expect(wait).toBeLessThanOrEqual(330_000);
    expect(await deliveries(endpoint.id, '?status=pending&event_type=task.completed')).toHaveLength(1);
    expect(await deliveries(endpoint.id, '?status=succeeded')).toHaveLength(0);
    // Leave nothing due for later tests.
    await call('PATCH', `/v1/webhooks/${endpoint.id}`, { status: 'disabled' });
  });

  it('does not follow redirects', async () => {
    receiver.respond((request) =>
      request.path === '/moved' ? { status: 302, headers: { location: '/target' } } : { status: 200 },
    );
    const endpoint = await createEndpoint(['contact.created'], '/moved');
    await call('POST', '/v1/contacts', { name: 'Redirected' });
    const delivery = await waitForDelivery(endpoint.id, (d) => d.attempt_count === 1);
    expect(delivery).toMatchObject({ status: 'pending', last_status_code: 302 });
    expect(receiver.received.filter((r) => r.path === '/target')).toHaveLength(0);
    await call('PATCH', `/v1/webhooks/${endpoint.id}`, { status: 'disabled' });
  });

  it('disables the endpoint when it answers 410 Gone', async () => {
    receiver.respond({ status: 410, body: 'gone' });
    const endpoint = await createEndpoint(['contact.created'], '/gone');
    await call('POST', '/v1/contacts', { name: 'Gone' });
    const delivery = await waitForDelivery(endpoint.id, (d) => d.status === 'failed');
    expect(delivery).toMatchObject({ last_status_code: 410, next_attempt_at: null });
    const stored = (await call('GET', `/v1/webhooks/${endpoint.id}`)).body.webhook;
    expect(stored).toMatchObject({ status: 'disabled', disabled_reason: 'the endpoint answered 410 Gone' });
    const history = await call('GET', `/v1/history?target_type=webhook_endpoint&target_id=${endpoint.id}`);
    expect(history.body.entries[0]).toMatchObject({ action: 'disable', actor: { type: 'system' } });
    await call('POST', '/v1/contacts', { name: 'After gone' });
    expect(await deliveries(endpoint.id)).toHaveLength(1);
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const endpoint = await createEndpoint(['contact.created'], '/rotate');
    const rotated = await call('PATCH', `/v1/webhooks/${endpoint.id}`, { rotate_secret: true });
    expect(rotated.status).toBe(200);
    const secret = rotated.body.webhook.secret;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(endpoint.secret);
    const history = await call('GET', `/v1/history?target_type=webhook_endpoint&target_id=${endpoint.id}`);
    expect(history.body.entries[0].changed_fields).toEqual(['secret']);

    await call('POST', '/v1/contacts', { name: 'Rotated' });
    const [request] = await waitForRequests(1, '/rotate');
    expect(String(request!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verify(secret, request!);
    verify(endpoint.secret, request!);

    clock.advance(24 * 60 * 60 * 1000 + 1000);
    await call('POST', '/v1/contacts', { name: 'Later' });
    const [, later] = await waitForRequests(2, '/rotate');
    expect(String(later!.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verify(secret, later!);
    expect(() => verify(endpoint.secret, later!)).toThrow();
  });

  it('sends a test event at once and returns the first attempt', async () => {
    const endpoint = await createEndpoint(['contact.created'], '/test');
    const sent = await call('POST', `/v1/webhooks/${endpoint.id}/test`, {});
    expect(sent.status).toBe(200);
    expect(sent.body.delivery).toMatchObject({
      event_type: 'webhook.test',
      status: 'succeeded',
      attempt_count: 1,
    });
    expect(sent.body.delivery.attempts[0]).toMatchObject({ status_code: 200, response_excerpt: 'thanks' });
    const request = receiver.received.find((r) => r.path === '/test')!;
    expect(verify(endpoint.secret, request)).toMatchObject({
      type: 'webhook.test',
      data: { webhook_id: endpoint.id },
    });

    receiver.respond({ status: 500, body: 'x'.repeat(5000) });
    const failed = await h.callTool(ws.mcpToken, 'send_test_webhook_event', { webhook_id: endpoint.id });
    expect(failed.body.delivery).toMatchObject({ status: 'pending', last_status_code: 500 });
    expect(failed.body.delivery.attempts[0].response_excerpt).toHaveLength(200);
    await call('PATCH', `/v1/webhooks/${endpoint.id}`, { status: 'disabled' });
  });
});
