// Webhook deliveries: created by the outbox relay (the consumer), found when due by the sweep,
// sent by the webhooks.deliver job. The delivery row is the durable state, so nothing is lost or doubled
// by a crash or restart: a job re-checks the row and records its attempt only if the row is unchanged.
import { type Kysely, sql } from 'kysely';
import type { Config } from '../../config.ts';
import { auditRow, insertAuditEvents, systemWrite } from '../../core/audit.ts';
import { isModuleEnabledIn } from '../../core/auth.ts';
import type { Clock } from '../../core/clock.ts';
import { mintedBefore, newId } from '../../core/ids.ts';
import type { EventConsumer } from '../../core/module.ts';
import { outboundPolicy, postOutbound } from '../../core/outbound-url.ts';
import { reusableQuery } from '../../db/reusable-query.ts';
import type { DB, OutboxEventsTable } from '../../db/tables.ts';
import type { JobDefinition, PeriodicTask } from '../../jobs/types.ts';
import { subscribes } from './integrations-store.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './integrations-tables.ts';
import { attemptOutcome } from './retry.ts';
import { openSecret, signedHeaders } from './secrets.ts';

export interface DeliveryEnv {
  db: Kysely<DB>;
  config: Config;
  clock: Clock;
}

/** The body every attempt sends: {id, type, created_at, workspace_id, data}. */
export function eventBody(event: {
  id: string;
  name: string;
  occurred_at: string;
  workspace_id: string;
  data: unknown;
}) {
  return JSON.stringify({
    id: event.id,
    type: event.name,
    created_at: event.occurred_at,
    workspace_id: event.workspace_id,
    data: event.data,
  });
}

// Run by the relay for every batch of a workspace: compiled once per transaction (see reusableQuery).
const activeEndpoints = reusableQuery((db) =>
  db
    .selectFrom('webhook_endpoints')
    .select(['id', 'event_types'])
    .where('workspace_id', '=', '')
    .where('status', '=', sql.lit('active')),
);

/** The event names some active endpoint of the workspace subscribes to ('*' among them: every name). */
async function subscribedTypes(db: Kysely<DB>, workspaceId: string): Promise<string[]> {
  const endpoints = await activeEndpoints(db, [workspaceId]);
  if (endpoints.length === 0 || !(await isModuleEnabledIn(db, workspaceId, 'integrations'))) return [];
  return [...new Set(endpoints.flatMap((endpoint) => JSON.parse(endpoint.event_types) as string[]))];
}

/**
 * One pending delivery per event and active endpoint that subscribes to it and existed before the event,
 * in the relay's transaction. Due at once: created_at is when the relay handed the event on.
 */
export async function createDeliveries(
  db: Kysely<DB>,
  workspaceId: string,
  events: OutboxEventsTable[],
  now: string,
): Promise<void> {
  const endpoints = await activeEndpoints(db, [workspaceId]);
  if (endpoints.length === 0 || !(await isModuleEnabledIn(db, workspaceId, 'integrations'))) return;
  const rows: WebhookDeliveriesTable[] = [];
  for (const event of events) {
    for (const endpoint of endpoints) {
      if (!mintedBefore(endpoint.id, event.id)) continue;
      if (!subscribes(JSON.parse(endpoint.event_types), event.name)) continue;
      rows.push({
        workspace_id: workspaceId,
        id: newId('whd'),
        endpoint_id: endpoint.id,
        event_id: event.id,
        event_type: event.name,
        payload: eventBody({ ...event, data: JSON.parse(event.payload) }),
        status: 'pending',
        attempt_count: 0,
        next_attempt_at: now,
        last_status_code: null,
        last_error: null,
        created_at: now,
        updated_at: now,
        completed_at: null,
      });
    }
  }
  // In chunks: a relay batch times the endpoints may exceed a statement's parameter limit.
  for (let start = 0; start < rows.length; start += 500) {
    await db
      .insertInto('webhook_deliveries')
      .values(rows.slice(start, start + 500))
      .execute();
  }
}

export const webhookConsumer: EventConsumer = {
  name: 'webhook_deliveries',
  subscribes: subscribedTypes,
  consume: (db, workspaceId, events, clock) =>
    createDeliveries(db, workspaceId, events, clock.now().toISOString()),
};

async function signingSecrets(db: Kysely<DB>, endpoint: WebhookEndpointsTable, now: Date): Promise<string[]> {
  const secrets = [await openSecret(db, endpoint.secret)];
  if (
    endpoint.previous_secret &&
    endpoint.previous_secret_expires_at &&
    endpoint.previous_secret_expires_at > now.toISOString()
  ) {
    secrets.push(await openSecret(db, endpoint.previous_secret));
  }
  return secrets;
}

/**
 * Makes the next attempt of a pending delivery and records it. `attempt` (from a job) must still be the
 * next one, else the job is stale and does nothing; `force` (send_test_webhook_event) skips the due-time
 * and endpoint-status checks. Throws only when `signal` aborts (shutdown): the attempt then never happened.
 */
export async function attemptDelivery(
  env: DeliveryEnv,
  workspaceId: string,
  deliveryId: string,
  options: { attempt?: number; force?: boolean; signal?: AbortSignal } = {},
): Promise<void> {
  const { db, config, clock } = env;
  const delivery = await db
    .selectFrom('webhook_deliveries')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', deliveryId)
    .executeTakeFirst();
  if (delivery?.status !== 'pending') return;
  const attempt = delivery.attempt_count + 1;
  if (options.attempt !== undefined && options.attempt !== attempt) return;
  const started = clock.now();
  if (!options.force && delivery.next_attempt_at && delivery.next_attempt_at > started.toISOString()) return;
  const endpoint = await db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', delivery.endpoint_id)
    .executeTakeFirstOrThrow();
  if (!options.force && endpoint.status !== 'active') {
    await db
      .updateTable('webhook_deliveries')
      .set({
        status: 'canceled',
        next_attempt_at: null,
        last_error: 'the endpoint is disabled',
        updated_at: started.toISOString(),
        completed_at: started.toISOString(),
      })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', deliveryId)
      .where('attempt_count', '=', delivery.attempt_count)
      .execute();
    return;
  }

  // webhook-timestamp is wall-clock time: receivers compare it with their own clock (5 minute tolerance).
  const headers = signedHeaders(
    await signingSecrets(db, endpoint, started),
    delivery.event_id,
    new Date(),
    delivery.payload,
  );
  const response = await postOutbound({
    url: endpoint.url,
    headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'wos-webhooks/1' },
    body: delivery.payload,
    timeoutMs: config.webhookTimeoutMs,
    policy: outboundPolicy(config),
    signal: options.signal,
  });
  if (options.signal?.aborted) throw new Error('stopped before the attempt was recorded');

  const { code, gone, error, next, status } = attemptOutcome(
    response,
    attempt,
    config.webhookRetryScheduleMs,
    started,
    [410],
  );
  const finished = clock.now().toISOString();

  await db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('webhook_deliveries')
      .set({
        status,
        attempt_count: attempt,
        next_attempt_at: next,
        last_status_code: code,
        last_error: error,
        updated_at: finished,
        completed_at: status === 'pending' ? null : finished,
      })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', deliveryId)
      .where('attempt_count', '=', delivery.attempt_count)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) !== 1) return; // another node recorded this attempt
    await trx
      .insertInto('webhook_attempts')
      .values({
        workspace_id: workspaceId,
        id: newId('wha'),
        delivery_id: deliveryId,
        attempt,
        attempted_at: started.toISOString(),
        status_code: code,
        duration_ms: response.durationMs,
        error,
        response_excerpt: response.excerpt,
        next_attempt_at: next,
      })
      .execute();
    if (gone && endpoint.status === 'active') {
      await trx
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: 'the endpoint answered 410 Gone', updated_at: finished })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', endpoint.id)
        .execute();
      const write = systemWrite({
        workspaceId,
        occurredAt: finished,
        actorName: 'webhook delivery worker',
        tool: 'webhooks.deliver',
        defaultAction: 'disable',
        causedBy: deliveryId,
      });
      await insertAuditEvents(trx, [
        auditRow(write, {
          targetType: 'webhook_endpoint',
          targetId: endpoint.id,
          changedFields: ['status', 'disabled_reason'],
        }),
      ]);
    }
  });
}

interface DeliverPayload {
  workspace_id: string;
  delivery_id: string;
  attempt: number;
}

export const deliverJob: JobDefinition<DeliverPayload> = {
  name: 'webhooks.deliver',
  // Job retries cover crashes and shutdowns mid-attempt (HTTP failures are recorded, not thrown).
  retryLimit: 5,
  retryDelaySeconds: 1,
  run: (job, env) =>
    attemptDelivery(env, job.payload.workspace_id, job.payload.delivery_id, {
      attempt: job.payload.attempt,
      signal: job.signal,
    }),
};

const SWEEP_BATCH = 200;

/** Enqueues one job per due delivery and attempt; the key makes every node's sweep enqueue it once. */
export const deliverySweep: PeriodicTask = {
  name: 'webhooks.sweep',
  run: async (env) => {
    const due = await env.db
      .selectFrom('webhook_deliveries')
      .select(['workspace_id', 'id', 'attempt_count'])
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', env.clock.now().toISOString())
      .orderBy('next_attempt_at')
      .limit(SWEEP_BATCH)
      .execute();
    for (const row of due) {
      const attempt = row.attempt_count + 1;
      await env.queue.enqueue(
        deliverJob.name,
        { workspace_id: row.workspace_id, delivery_id: row.id, attempt },
        { key: `${row.id}:${attempt}` },
      );
    }
  },
};
