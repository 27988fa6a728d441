// Subscriptions route notifications: a web push reaches a local endpoint with the Web Push headers (VAPID
// JWT, aes128gcm payload the browser keys decrypt), webhook subscriptions are signed, 404/410 disable.
import { createECDH, createPublicKey, randomBytes, verify } from 'node:crypto';
import ece from 'http_ece';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace } from './helpers/harness.ts';
import { type Receiver, startReceiver } from './helpers/webhook-receiver.ts';

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
beforeEach(() => receiver.respond({ status: 201 }));

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const browser = () => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') },
  };
};
const requestsTo = (path: string, n: number) =>
  vi.waitFor(
    () => {
      const got = receiver.received.filter((r) => r.path === path);
      if (got.length < n) throw new Error(`received ${got.length} of ${n}`);
      return got;
    },
    { timeout: 8000, interval: 20 },
  );
const until = <T>(fn: () => Promise<T | undefined>) =>
  vi.waitFor(
    async () => {
      const value = await fn();
      if (!value) throw new Error('not yet');
      return value;
    },
    { timeout: 8000, interval: 25 },
  );

describe('web push', () => {
  it('pushes a notification with VAPID and aes128gcm to the browser endpoint', async () => {
    const device = browser();
    const created = await call('POST', '/v1/notifications/subscriptions', {
      recipient_id: 'u-push',
      channel: 'web_push',
      endpoint: `${receiver.url}/push/device-1`,
      keys: device.keys,
      idempotency_key: 's-1',
    });
    expect(created.status).toBe(201);
    expect(created.body.subscription).toMatchObject({ channel: 'web_push', status: 'active' });
    expect(created.body.subscription.keys).toBeUndefined();
    const replay = await call('POST', '/v1/notifications/subscriptions', {
      recipient_id: 'u-push',
      channel: 'web_push',
      endpoint: `${receiver.url}/push/device-1`,
      keys: device.keys,
      idempotency_key: 's-1',
    });
    expect(replay.body.subscription.id).toBe(created.body.subscription.id);
    expect(
      (
        await call('POST', '/v1/notifications/subscriptions', {
          recipient_id: 'u-push',
          channel: 'web_push',
          endpoint: `${receiver.url}/push/other`,
          keys: device.keys,
          idempotency_key: 's-1',
        })
      ).status,
    ).toBe(409);
    const listed = await call('GET', '/v1/notifications/subscriptions?recipient_id=u-push');
    const vapidKey = listed.body.vapid_public_key as string;
    expect(Buffer.from(vapidKey, 'base64url')).toHaveLength(65);

    const notification = (
      await call('POST', '/v1/notifications', {
        recipient_id: 'u-push',
        title: 'Ping',
        body: 'From the test',
        channels: ['web_push'],
      })
    ).body.notification;
    expect(notification.status).toBe('pending');
    const [push] = await requestsTo('/push/device-1', 1);
    expect(push!.method).toBe('POST');
    expect(push!.headers).toMatchObject({
      'content-encoding': 'aes128gcm',
      'content-type': 'application/octet-stream',
      ttl: '86400',
      urgency: 'normal',
    });
    const match = /^vapid t=([\w-]+)\.([\w-]+)\.([\w-]+), k=([\w-]+)$/.exec(
      String(push!.headers.authorization),
    );
    expect(match).not.toBeNull();
    const [, header, claims, signature, k] = match!;
    expect(k).toBe(vapidKey);
    expect(JSON.parse(Buffer.from(claims!, 'base64url').toString())).toMatchObject({
      aud: receiver.url,
      sub: 'mailto:operator@wos.test',
    });
    const raw = Buffer.from(vapidKey, 'base64url');
    const key = createPublicKey({
      key: {
        kty: 'EC',
        crv: 'P-256',
        x: raw.subarray(1, 33).toString('base64url'),
        y: raw.subarray(33).toString('base64url'),
      },
      format: 'jwk',
    });
    expect(
      verify(
        'sha256',
        Buffer.from(`${header}.${claims}`),
        { key, dsaEncoding: 'ieee-p1363' },
        Buffer.from(signature!, 'base64url'),
      ),
    ).toBe(true);
    const plain = ece.decrypt(push!.body, {
      version: 'aes128gcm',
      privateKey: device.ecdh,
      authSecret: device.auth,
    });
    expect(JSON.parse(plain.toString())).toMatchObject({
      id: notification.id,
      title: 'Ping',
      body: 'From the test',
    });

    const delivered = await until(async () => {
      const n = (await call('GET', `/v1/notifications/${notification.id}`)).body.notification;
      return n.status === 'delivered' ? n : undefined;
    });
    expect(delivered.channels).toEqual(['web_push']);
  });

  it('disables a subscription whose push endpoint answers 410 or 404', async () => {
    for (const [path, status] of [
      ['/push/gone', 410],
      ['/push/missing', 404],
    ] as const) {
      receiver.respond((r) => (r.path === path ? { status } : { status: 201 }));
      const subscription = (
        await call('POST', '/v1/notifications/subscriptions', {
          recipient_id: `u-${status}`,
          channel: 'web_push',
          endpoint: `${receiver.url}${path}`,
          keys: browser().keys,
        })
      ).body.subscription;
      await call('POST', '/v1/notifications', {
        recipient_id: `u-${status}`,
        title: 'Bye',
        channels: ['web_push'],
      });
      const disabled = await until(async () => {
        const s = (await call('GET', `/v1/notifications/subscriptions/${subscription.id}`)).body.subscription;
        return s.status === 'disabled' ? s : undefined;
      });
      expect(disabled.disabled_reason).toBe(`the endpoint answered ${status}`);
      const delivery = await h.db
        .selectFrom('notification_deliveries')
        .selectAll()
        .where('subscription_id', '=', subscription.id)
        .executeTakeFirstOrThrow();
      expect(delivery).toMatchObject({ status: 'failed', last_status_code: status });
      const next = (
        await call('POST', '/v1/notifications', {
          recipient_id: `u-${status}`,
          title: 'Again',
          channels: ['web_push'],
        })
      ).body.notification;
      expect(next.status).toBe('suppressed');
    }
  });

  it('rejects malformed keys and answers 404 across workspaces', async () => {
    const bad = await call('POST', '/v1/notifications/subscriptions', {
      recipient_id: 'u',
      channel: 'web_push',
      endpoint: `${receiver.url}/push/bad`,
      keys: { p256dh: 'abc', auth: 'def' },
    });
    expect(bad.body.error.field_errors[0].field).toBe('keys.p256dh');
    const missing = await call('POST', '/v1/notifications/subscriptions', {
      recipient_id: 'u',
      channel: 'web_push',
      endpoint: `${receiver.url}/push/bad`,
    });
    expect(missing.body.error.field_errors[0].field).toBe('keys');
    const mine = (
      await call('POST', '/v1/notifications/subscriptions', {
        recipient_id: 'u-x',
        channel: 'web_push',
        endpoint: `${receiver.url}/push/x`,
        keys: browser().keys,
      })
    ).body.subscription;
    expect(
      (
        await call(
          'PATCH',
          `/v1/notifications/subscriptions/${mine.id}`,
          { status: 'disabled' },
          other.apiKey,
        )
      ).status,
    ).toBe(404);
    expect(
      (await call('GET', `/v1/notifications/subscriptions/${mine.id}`, undefined, other.apiKey)).status,
    ).toBe(404);
    const off = await h.callTool(ws.mcpToken, 'update_notification_subscription', {
      subscription_id: mine.id,
      status: 'disabled',
    });
    expect(off.body.subscription).toMatchObject({
      status: 'disabled',
      disabled_reason: 'disabled by a user',
    });
  });
});

describe('webhook subscriptions', () => {
  it('POSTs the notification signed like webhook endpoints', async () => {
    const created = await call('POST', '/v1/notifications/subscriptions', {
      recipient_id: 'u-hook',
      channel: 'webhook',
      endpoint: `${receiver.url}/nhook`,
    });
    const secret = created.body.subscription.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect(
      (await call('GET', `/v1/notifications/subscriptions/${created.body.subscription.id}`)).body.subscription
        .secret,
    ).toBeUndefined();
    const notification = (
      await call('POST', '/v1/notifications', { recipient_id: 'u-hook', title: 'Signed' })
    ).body.notification;
    expect(notification.status).toBe('delivered');
    const [request] = await requestsTo('/nhook', 1);
    const payload = new Webhook(secret).verify(
      request!.text,
      request!.headers as Record<string, string>,
    ) as any;
    expect(payload).toMatchObject({
      type: 'notification.created',
      workspace_id: ws.id,
      data: { id: notification.id, title: 'Signed' },
    });
    expect(request!.headers['webhook-id']).toBe(payload.id);
    await until(async () => {
      const row = await h.db
        .selectFrom('notification_deliveries')
        .selectAll()
        .where('notification_id', '=', notification.id)
        .executeTakeFirst();
      return row?.status === 'succeeded' ? row : undefined;
    });
  });
});
