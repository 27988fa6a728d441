// Sends notification deliveries to subscriptions: web push (encrypted with the browser's keys, signed with
// the installation's VAPID keys) or signed webhook POSTs, both through the SSRF-guarded sender. Same
// durable pattern as webhook deliveries: rows found due by the sweep, one keyed job per attempt.
import type { Kysely } from 'kysely';
import webpush from 'web-push';
import type { Config } from '../../config.ts';
import { outboundPolicy, postOutbound } from '../../core/outbound-url.ts';
import type { DB } from '../../db/tables.ts';
import type { JobDefinition, PeriodicTask } from '../../jobs/types.ts';
import type { DeliveryEnv } from '../integrations/delivery-worker.ts';
import { attemptOutcome } from '../integrations/retry.ts';
import { installationValue, openSecret, signedHeaders } from '../integrations/secrets.ts';
import { toNotification } from './notification-store.ts';

/** Generated once per installation, kept in the installation table. */
export async function vapidKeys(db: Kysely<DB>): Promise<{ publicKey: string; privateKey: string }> {
  return JSON.parse(
    await installationValue(db, 'vapid_keys', () => JSON.stringify(webpush.generateVAPIDKeys())),
  );
}

export function vapidSubject(config: Config): string {
  if (config.vapidSubject) return config.vapidSubject;
  const url = new URL(config.publicUrl);
  return url.protocol === 'https:' ? url.origin : `mailto:operator@${url.hostname}`;
}

const PUSH_TTL_SECONDS = 24 * 60 * 60;

export async function attemptNotificationDelivery(
  env: DeliveryEnv,
  workspaceId: string,
  deliveryId: string,
  options: { attempt?: number; signal?: AbortSignal } = {},
): Promise<void> {
  const { db, config, clock } = env;
  const delivery = await db
    .selectFrom('notification_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  if (delivery?.status !== 'pending') return;
  const attempt = delivery.attempt_count + 1;
  if (options.attempt !== undefined && options.attempt !== attempt) return;
  const started = clock.now();
  if (delivery.next_attempt_at && delivery.next_attempt_at > started.toISOString()) return;
  const subscription = await db
    .selectFrom('notification_subscriptions')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', delivery.subscription_id)
    .executeTakeFirstOrThrow();
  const guard = (query: any) =>
    query
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', deliveryId)
      .where('attempt_count', '=', delivery.attempt_count)
      .where('status', '=', 'pending');
  if (subscription.status !== 'active') {
    const now = started.toISOString();
    await guard(
      db.updateTable('notification_deliveries').set({
        status: 'canceled',
        next_attempt_at: null,
        last_error: 'the subscription is disabled',
        updated_at: now,
        completed_at: now,
      }),
    ).execute();
    return;
  }
  const row = await db
    .selectFrom('notifications')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', delivery.notification_id)
    .executeTakeFirstOrThrow();
  const notification = toNotification(row);

  let request: { url: string; headers: Record<string, string>; body: string | Buffer };
  if (subscription.channel === 'web_push') {
    const keys = await vapidKeys(db);
    const payload = JSON.stringify({
      id: notification.id,
      title: notification.title,
      body: notification.body,
      source_type: notification.source_type,
      source_id: notification.source_id,
      event_type: notification.event_type,
      metadata: notification.metadata,
      created_at: notification.created_at,
    });
    const details = webpush.generateRequestDetails(
      { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh!, auth: subscription.auth! } },
      payload,
      {
        vapidDetails: {
          subject: vapidSubject(config),
          publicKey: keys.publicKey,
          privateKey: keys.privateKey,
        },
        TTL: PUSH_TTL_SECONDS,
      },
    );
    const headers = Object.fromEntries(
      Object.entries(details.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
    );
    delete headers['content-length'];
    request = { url: details.endpoint, headers, body: details.body ?? Buffer.alloc(0) };
  } else {
    const body = JSON.stringify({
      id: delivery.id,
      type: 'notification.created',
      created_at: notification.created_at,
      workspace_id: workspaceId,
      data: notification,
    });
    const signed = signedHeaders([await openSecret(db, subscription.secret!)], delivery.id, new Date(), body);
    request = {
      url: subscription.endpoint,
      headers: { ...signed, 'content-type': 'application/json', 'user-agent': 'wos-webhooks/1' },
      body,
    };
  }
  const response = await postOutbound({
    ...request,
    timeoutMs: config.webhookTimeoutMs,
    policy: outboundPolicy(config),
    signal: options.signal,
  });
  if (options.signal?.aborted) throw new Error('stopped before the attempt was recorded');

  // The push service (or receiver) answering 404 or 410 says this subscription no longer exists.
  const { code, succeeded, gone, error, next, status } = attemptOutcome(
    response,
    attempt,
    config.webhookRetryScheduleMs,
    started,
    [404, 410],
  );
  const finished = clock.now().toISOString();
  await db.transaction().execute(async (trx) => {
    const updated = await guard(
      trx.updateTable('notification_deliveries').set({
        status,
        attempt_count: attempt,
        next_attempt_at: next,
        last_status_code: code,
        last_error: error,
        updated_at: finished,
        completed_at: status === 'pending' ? null : finished,
      }),
    ).executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return;
    if (succeeded && row.status === 'pending') {
      await trx
        .updateTable('notifications')
        .set({ status: 'delivered', updated_at: finished })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', row.id)
        .where('status', '=', 'pending')
        .execute();
    }
    if (gone) {
      await trx
        .updateTable('notification_subscriptions')
        .set({ status: 'disabled', disabled_reason: `the endpoint answered ${code}`, updated_at: finished })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', subscription.id)
        .execute();
    }
  });
}

interface DeliverPayload {
  workspace_id: string;
  delivery_id: string;
  attempt: number;
}

export const notificationDeliverJob: JobDefinition<DeliverPayload> = {
  name: 'notifications.deliver',
  retryLimit: 5,
  retryDelaySeconds: 1,
  run: (job, env) =>
    attemptNotificationDelivery(env, job.payload.workspace_id, job.payload.delivery_id, {
      attempt: job.payload.attempt,
      signal: job.signal,
    }),
};

export const notificationSweep: PeriodicTask = {
  name: 'notifications.sweep',
  run: async (env) => {
    const due = await env.db
      .selectFrom('notification_deliveries')
      .select(['workspace_id', 'id', 'attempt_count'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', env.clock.now().toISOString())
      .orderBy('next_attempt_at')
      .limit(200)
      .execute();
    for (const row of due) {
      const attempt = row.attempt_count + 1;
      await env.queue.enqueue(
        notificationDeliverJob.name,
        { workspace_id: row.workspace_id, delivery_id: row.id, attempt },
        { key: `${row.id}:${attempt}` },
      );
    }
  },
};
