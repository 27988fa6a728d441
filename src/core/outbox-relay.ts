// The outbox relay. A write commits its record, audit, call event and outbox rows, and nothing else; the
// relay hands each stored event to the consumers that subscribe to its name (webhook endpoints,
// notification rules), oldest first per workspace, at least once. What a consumer writes commits in the
// same transaction as the relay's record that it consumed the event (published_at once every consumer that
// wants it has; until then an outbox_consumptions row per consumer), so an interrupted pass never makes a
// consumer act twice on one event. Every node with the worker on relays, on each worker tick and, nudged,
// right after a write on the node commits events. PostgreSQL nodes claim rows with FOR UPDATE SKIP LOCKED;
// a workspace's events go to one node at a time, in order.
import { type Kysely, sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/database.ts';
import type { DB, OutboxConsumptionsTable, OutboxEventsTable, OutboxFailuresTable } from '../db/tables.ts';
import type { Clock } from './clock.ts';
import type { EventConsumer } from './module.ts';
import { clearFailures, consumerEventKey, failuresOf, recordFailure } from './outbox-failures.ts';

const BATCH = 200;
/** A pass stops after this many batches (the next tick or nudge goes on), so it never runs unbounded. */
const MAX_BATCHES_PER_PASS = 50;

export interface RelayDeps {
  database: Database;
  consumers: readonly EventConsumer[];
  clock: Clock;
  logger: Logger;
  /** A consumer failing on one event for this long gives it up (WOS_OUTBOX_GIVE_UP_MINUTES). */
  giveUpAfterMs: number;
  /** Called with the seconds from each event's occurrence to its publication (the relay histogram). */
  observeDelay?: (seconds: number) => void;
}

export interface OutboxRelay {
  /** One pass now, after the one running if any: relays every event committed before it starts. */
  pass(): Promise<number>;
  /** Asks for a pass soon; does nothing unless started (the worker starts it). */
  nudge(): void;
  start(): void;
  /** Stops nudges and waits for the pass in progress. */
  stop(): Promise<void>;
}

export function createOutboxRelay(deps: RelayDeps): OutboxRelay {
  const names = new Set<string>();
  for (const consumer of deps.consumers) {
    if (names.has(consumer.name)) throw new Error(`Two event consumers are named ${consumer.name}`);
    names.add(consumer.name);
  }
  let on = false;
  let tail: Promise<unknown> = Promise.resolve();
  let waiting: Promise<number> | undefined;

  // Passes run one at a time; calls made while one waits to start share it (it will see their events).
  const pass = (): Promise<number> => {
    if (!waiting) {
      const next = tail.then(() => {
        waiting = undefined;
        return relayPass(deps);
      });
      waiting = next;
      tail = next.catch(() => undefined);
    }
    return waiting;
  };
  return {
    pass,
    nudge: () => {
      if (on) pass().catch((err) => deps.logger.error({ err }, 'outbox relay pass failed'));
    },
    start: () => {
      on = true;
    },
    stop: async () => {
      on = false;
      await tail;
    },
  };
}

async function relayPass(deps: RelayDeps): Promise<number> {
  // Workspaces left for a later pass: another node holds earlier events of theirs, or a consumer failed.
  const held = new Set<string>();
  let published = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_PASS; batch++) {
    const outcome = await deps.database.transaction((trx) => relayBatch(trx, deps, held));
    published += outcome.published.length;
    if (deps.observeDelay) {
      const now = deps.clock.now().getTime();
      for (const occurredAt of outcome.published)
        deps.observeDelay(Math.max(0, now - Date.parse(occurredAt)) / 1000);
    }
    if (outcome.claimed < BATCH) break;
  }
  return published;
}

async function relayBatch(
  trx: Kysely<DB>,
  deps: RelayDeps,
  held: Set<string>,
): Promise<{ claimed: number; published: string[] }> {
  const postgres = deps.database.dialect === 'postgres';
  let claim = trx.selectFrom('outbox_events').selectAll().where('published_at', 'is', null);
  if (held.size) claim = claim.where('workspace_id', 'not in', [...held]);
  claim = claim.orderBy('id').limit(BATCH);
  const claimed = await (postgres ? claim.forUpdate().skipLocked() : claim).execute();
  if (claimed.length === 0) return { claimed: 0, published: [] };
  // On SQLite one relay runs, so a claim is always each workspace's oldest events; on PostgreSQL another
  // node may hold some, and a workspace is relayed only up to the first event this node does not hold.
  const rows = postgres ? await contiguousHeads(trx, claimed, held) : claimed;
  if (rows.length === 0) return { claimed: claimed.length, published: [] };

  const byWorkspace = new Map<string, OutboxEventsTable[]>();
  for (const row of rows)
    byWorkspace.set(row.workspace_id, [...(byWorkspace.get(row.workspace_id) ?? []), row]);
  const ids = rows.map((row) => row.id);
  const earlier = await trx
    .selectFrom('outbox_consumptions')
    .select(['consumer', 'event_id'])
    .where('workspace_id', 'in', [...byWorkspace.keys()])
    .where('event_id', 'in', ids)
    .execute();
  const done = new Set(earlier.map((row) => consumerEventKey(row.consumer, row.event_id)));
  const failures = await failuresOf(trx, [...byWorkspace.keys()], ids, { system: true });

  const now = deps.clock.now().toISOString();
  const publish: OutboxEventsTable[] = [];
  const consumptions: OutboxConsumptionsTable[] = [];
  for (const [workspaceId, events] of byWorkspace) {
    const owed = new Set<string>(); // events some consumer still has to handle
    const handled: OutboxConsumptionsTable[] = [];
    for (const consumer of deps.consumers) {
      const wanted = await wantedEvents(trx, deps, consumer, workspaceId, events);
      const pending = (wanted ?? events).filter(
        (event) => !done.has(consumerEventKey(consumer.name, event.id)),
      );
      const count = wanted ? await handOn(trx, deps, consumer, workspaceId, pending, { failures, now }) : 0;
      for (const event of pending.slice(0, count)) {
        handled.push({
          workspace_id: workspaceId,
          consumer: consumer.name,
          event_id: event.id,
          consumed_at: now,
        });
      }
      for (const event of pending.slice(count)) owed.add(event.id);
      if (count < pending.length) held.add(workspaceId);
    }
    publish.push(...events.filter((event) => !owed.has(event.id)));
    // Only events that stay unpublished need the per-consumer record; published_at covers the rest.
    consumptions.push(...handled.filter((row) => owed.has(row.event_id)));
  }

  for (let start = 0; start < consumptions.length; start += 500) {
    await trx
      .insertInto('outbox_consumptions')
      .values(consumptions.slice(start, start + 500))
      .execute();
  }
  if (publish.length) {
    const ids = new Set(publish.map((event) => event.id));
    const workspaces = [...new Set(publish.map((event) => event.workspace_id))];
    await trx
      .updateTable('outbox_events')
      .set({ published_at: now })
      .where('workspace_id', 'in', workspaces)
      .where('id', 'in', [...ids])
      .execute();
    const finished = [...new Set(earlier.filter((row) => ids.has(row.event_id)).map((row) => row.event_id))];
    if (finished.length) {
      await trx
        .deleteFrom('outbox_consumptions')
        .where('workspace_id', 'in', workspaces)
        .where('event_id', 'in', finished)
        .execute();
    }
  }
  return { claimed: claimed.length, published: publish.map((event) => event.occurred_at) };
}

/** The claimed rows of each workspace up to its first unpublished event that this node did not claim. */
async function contiguousHeads(
  trx: Kysely<DB>,
  claimed: OutboxEventsTable[],
  held: Set<string>,
): Promise<OutboxEventsTable[]> {
  const mine = new Set(claimed.map((row) => row.id));
  const visible = await trx
    .selectFrom('outbox_events')
    .select(['workspace_id', 'id'])
    .where('published_at', 'is', null)
    .where('workspace_id', 'in', [...new Set(claimed.map((row) => row.workspace_id))])
    .where('id', '<=', claimed.at(-1)!.id)
    .orderBy('id')
    .execute();
  const gap = new Map<string, string>();
  for (const row of visible)
    if (!mine.has(row.id) && !gap.has(row.workspace_id)) gap.set(row.workspace_id, row.id);
  for (const workspaceId of gap.keys()) held.add(workspaceId);
  return claimed.filter((row) => {
    const first = gap.get(row.workspace_id);
    return first === undefined || row.id < first;
  });
}

async function wantedEvents(
  trx: Kysely<DB>,
  deps: RelayDeps,
  consumer: EventConsumer,
  workspaceId: string,
  events: OutboxEventsTable[],
): Promise<OutboxEventsTable[] | undefined> {
  let names: readonly string[];
  try {
    names =
      typeof consumer.subscribes === 'function'
        ? await consumer.subscribes(trx, workspaceId)
        : consumer.subscribes;
  } catch (err) {
    // Its interest is unknown: every event waits for it (undefined), as if it had failed on the first.
    deps.logger.error(
      { err, consumer: consumer.name, workspace_id: workspaceId },
      'event consumer subscriptions failed',
    );
    return undefined;
  }
  if (names.includes('*')) return events;
  const wanted = new Set(names);
  return events.filter((event) => wanted.has(event.name));
}

/**
 * Hands the events to the consumer, each attempt in a savepoint: all at once, else one at a time up to the
 * first that fails (the ones after it wait, to keep the order). A failure is counted (outbox-failures.ts);
 * an event the consumer has failed on for giveUpAfterMs is given up and counts as handled, so one bad event
 * cannot hold the workspace's later events forever. Returns how many it handled.
 */
async function handOn(
  trx: Kysely<DB>,
  deps: RelayDeps,
  consumer: EventConsumer,
  workspaceId: string,
  events: OutboxEventsTable[],
  attempt: { failures: Map<string, OutboxFailuresTable>; now: string },
): Promise<number> {
  if (events.length === 0) return 0;
  const failed = (event: OutboxEventsTable) =>
    attempt.failures.get(consumerEventKey(consumer.name, event.id));
  const settled = (handled: OutboxEventsTable[]) =>
    clearFailures(
      trx,
      handled.flatMap((event) => failed(event) ?? []),
    );
  if (await inSavepoint(trx, () => consumer.consume(trx, workspaceId, events, deps.clock))) {
    await settled(events);
    return events.length;
  }
  for (const [index, event] of events.entries()) {
    try {
      await inSavepoint(trx, () => consumer.consume(trx, workspaceId, [event], deps.clock), true);
    } catch (err) {
      const failure = await recordFailure(trx, failed(event), {
        consumer: consumer.name,
        event,
        error: err,
        now: attempt.now,
        giveUpAfterMs: deps.giveUpAfterMs,
      });
      const context = {
        err,
        consumer: consumer.name,
        workspace_id: workspaceId,
        event_id: event.id,
        event: event.name,
        attempts: failure.attempts,
      };
      if (failure.gave_up_at) {
        deps.logger.error(
          context,
          'event consumer gave the event up after failing on it; see /admin/v1/outbox-failures',
        );
        continue;
      }
      deps.logger.error(context, 'event consumer failed; the event is relayed again on the next pass');
      return index;
    }
    await settled([event]);
  }
  return events.length;
}

/** Runs work in a savepoint; on failure rolls it back and returns false (or rethrows). */
async function inSavepoint(trx: Kysely<DB>, work: () => Promise<void>, rethrow = false): Promise<boolean> {
  await sql`savepoint wos_relay`.execute(trx);
  try {
    await work();
    await sql`release savepoint wos_relay`.execute(trx);
    return true;
  } catch (err) {
    await sql`rollback to savepoint wos_relay`.execute(trx);
    await sql`release savepoint wos_relay`.execute(trx);
    if (rethrow) throw err;
    return false;
  }
}
