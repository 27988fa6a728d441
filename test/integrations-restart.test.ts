// Deliveries survive a restart of the service (between attempts and in the middle of one), the address
// check runs again at send time, and a delivery fails for good when the schedule is used up.
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.ts';

let h: Harness;
let ws: TestWorkspace;
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
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});

const call = (method: string, url: string, body?: unknown) =>
  h.request(method, url, { token: ws.apiKey, body });
const createEndpoint = async (path: string) => {
  const res = await call('POST', '/v1/webhooks', {
    url: `${receiver.url}${path}`,
    event_types: ['contact.created'],
  });
  expect(res.status).toBe(201);
  return res.body.webhook as { id: string; secret: string };
};
const pending = (n: number, path: string) =>
  vi.waitFor(
    () => {
      const got = receiver.received.filter((r) => r.path === path);
      if (got.length < n) throw new Error(`received ${got.length} of ${n}`);
      return got;
    },
    { timeout: 10_000, interval: 20 },
  );
const deliveryOf = (webhookId: string, check: (d: any) => boolean) =>
  vi.waitFor(
    async () => {
      const [delivery] = (await call('GET', `/v1/webhooks/${webhookId}/deliveries`)).body.deliveries;
      if (!delivery || !check(delivery)) throw new Error(`not yet: ${JSON.stringify(delivery)}`);
      return delivery;
    },
    { timeout: 10_000, interval: 25 },
  );

describe('deliveries across restarts', () => {
  it('resumes a pending retry after the service restarts', async () => {
    receiver.respond({ status: 500 });
    const endpoint = await createEndpoint('/between');
    const contact = await call('POST', '/v1/contacts', { name: 'Resume', idempotency_key: 'resume-1' });
    // A replayed create emits nothing, so it makes no second delivery.
    await call('POST', '/v1/contacts', { name: 'Resume', idempotency_key: 'resume-1' });
    await deliveryOf(endpoint.id, (d) => d.attempt_count === 1);

    h = await h.restart();
    receiver.respond({ status: 200 });
    clock.advance(6000);
    const done = await deliveryOf(endpoint.id, (d) => d.status === 'succeeded');
    expect(done.attempts.map((a: any) => a.status_code)).toEqual([500, 200]);
    const [first, second] = receiver.received.filter((r) => r.path === '/between');
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(
      new Webhook(endpoint.secret).verify(second!.text, second!.headers as Record<string, string>),
    ).toMatchObject({
      data: { id: contact.body.contact.id },
    });
    const rows = await h.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('endpoint_id', '=', endpoint.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('sends again, unrecorded, an attempt the shutdown interrupted', async () => {
    receiver.respond({ hang: true, status: 0 });
    const endpoint = await createEndpoint('/interrupted');
    await call('POST', '/v1/contacts', { name: 'Interrupted' });
    await pending(1, '/interrupted');

    h = await h.restart();
    receiver.respond({ status: 204 });
    const done = await deliveryOf(endpoint.id, (d) => d.status === 'succeeded');
    expect(done.attempts).toEqual([expect.objectContaining({ attempt: 1, status_code: 204 })]);
    const requests = await pending(2, '/interrupted');
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
  });

  it('fails a delivery for good when the shortened schedule is used up', async () => {
    h = await h.restart({ webhookRetryScheduleMs: [1000, 2000] });
    receiver.respond({ status: 500 });
    const endpoint = await createEndpoint('/exhausted');
    await call('POST', '/v1/contacts', { name: 'Exhausted' });
    await deliveryOf(endpoint.id, (d) => d.attempt_count === 1);
    clock.advance(1100);
    await deliveryOf(endpoint.id, (d) => d.attempt_count === 2);
    clock.advance(2200);
    const failed = await deliveryOf(endpoint.id, (d) => d.status === 'failed');
    expect(failed).toMatchObject({ attempt_count: 3, next_attempt_at: null, last_status_code: 500 });
    expect(failed.attempts.map((a: any) => a.next_attempt_at === null)).toEqual([false, false, true]);
    clock.advance(60_000);
    await h.worker!.tick();
    expect(receiver.received.filter((r) => r.path === '/exhausted')).toHaveLength(3);
  });

  it('checks the port again at send time', async () => {
    receiver.respond({ status: 200 });
    const endpoint = await createEndpoint('/port');
    const allowed = h.config.outboundAllowedPorts;
    // The operator withdraws the receiver's port: the saved URL is now refused.
    h = await h.restart({ outboundAllowedPorts: [] });
    await call('POST', '/v1/contacts', { name: 'Port refused' });
    const delivery = await deliveryOf(endpoint.id, (d) => d.attempt_count === 1);
    expect(delivery.attempts[0]).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/^URL is refused: port \d+ is not allowed/),
    });
    expect(receiver.received.filter((r) => r.path === '/port')).toHaveLength(0);
    h = await h.restart({ outboundAllowedPorts: allowed });
  });

  it('checks the address again at send time', async () => {
    receiver.respond({ status: 200 });
    const endpoint = await createEndpoint('/rebound');
    // The operator withdraws the allowance: the saved URL now points at a refused address.
    h = await h.restart({ webhookAllowPrivate: false });
    await call('POST', '/v1/contacts', { name: 'Refused' });
    const delivery = await deliveryOf(endpoint.id, (d) => d.attempt_count === 1);
    expect(delivery.status).toBe('pending');
    expect(delivery.attempts[0]).toMatchObject({
      status_code: null,
      error: expect.stringMatching(/^URL is refused: 127\.0\.0\.1 is a loopback/),
    });
    expect(receiver.received.filter((r) => r.path === '/rebound')).toHaveLength(0);
    const update = await call('PATCH', `/v1/webhooks/${endpoint.id}`, { url: 'http://127.0.0.1:1/x' });
    expect(update.body.error.field_errors[0].field).toBe('url');
  });

  // Several nodes share one PostgreSQL queue (SQLite installations are one node by design).
  it.skipIf(!usingPostgres)('sends each delivery once when two nodes run workers', async () => {
    h = await h.restart({ webhookAllowPrivate: true });
    const sibling = await h.startSibling();
    try {
      receiver.respond({ status: 200 });
      const endpoint = await createEndpoint('/shared');
      for (let i = 0; i < 6; i++) await call('POST', '/v1/contacts', { name: `Shared ${i}` });
      const requests = await pending(6, '/shared');
      await vi.waitFor(
        async () => {
          const rows = await h.db
            .selectFrom('webhook_deliveries')
            .select('status')
            .where('endpoint_id', '=', endpoint.id)
            .execute();
          if (rows.length !== 6 || rows.some((r) => r.status !== 'succeeded'))
            throw new Error('not all delivered');
        },
        { timeout: 10_000, interval: 25 },
      );
      await h.worker!.tick();
      await sibling.worker!.tick();
      expect(receiver.received.filter((r) => r.path === '/shared')).toHaveLength(6);
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(6);
    } finally {
      await sibling.app.close();
    }
  });
});
