// The outbox relay: writes commit only their own rows; the relay hands each event to the consumers that
// subscribe to it, in order per workspace, at least once, and each consumer's effect happens once per event
// although a pass fails or the service restarts in the middle.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditRow, insertAuditEvents } from '../src/core/audit.ts';
import type { EventConsumer, ModuleDefinition } from '../src/core/module.ts';
import type { OutboxEventsTable } from '../src/db/tables.ts';
import { crmModule } from '../src/modules/crm/index.ts';
import { tasksModule } from '../src/modules/tasks/index.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

/** Every event a consumer was handed, in order (failed attempts included), kept outside any transaction. */
const handed: Record<string, string[]> = {};
/** Event IDs the flaky consumer fails on while they are listed. */
const failOn = new Set<string>();

/** A consumer whose effect is an audit row naming the event: counting rows counts effects. */
function recorder(name: string, subscribes: EventConsumer['subscribes']): EventConsumer {
  handed[name] = [];
  return {
    name,
    subscribes,
    consume: async (db, workspaceId, events: OutboxEventsTable[], clock) => {
      for (const event of events) {
        handed[name]!.push(event.id);
        if (name === 'flaky' && failOn.has(event.id)) throw new Error(`flaky fails on ${event.id}`);
        const write = {
          workspaceId,
          requestId: event.request_id,
          occurredAt: clock.now().toISOString(),
          actor: { type: 'system' as const, credentialId: null, name },
          surface: 'system' as const,
          tool: name,
          defaultAction: 'consume',
        };
        await insertAuditEvents(db, [auditRow(write, { targetType: 'outbox_event', targetId: event.id })]);
      }
    },
  };
}

const probes: ModuleDefinition = {
  name: 'activity_log',
  operations: [],
  eventConsumers: [
    recorder('flaky', ['contact.created']),
    recorder('tasks-only', async () => ['task.created']),
    recorder('everything', ['*']),
  ],
};

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start({ registry: buildRegistry([crmModule, tasksModule, probes]) });
  ws = await h.workspace('Relay', ['crm', 'tasks']);
  other = await h.workspace('Relay neighbour', ['crm', 'tasks']);
});
afterAll(() => h.close());

const createContact = async (token: string, name: string) => {
  const res = await h.request('POST', '/v1/contacts', { token, body: { name } });
  expect(res.status, res.text).toBe(201);
  return res.body.request_id as string;
};
const eventsOf = async (workspaceId: string) =>
  h.db
    .selectFrom('outbox_events')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .orderBy('id')
    .execute();
/** consumer -> event IDs it took effect on, oldest effect first. */
const effects = async (consumer: string, workspaceId: string) =>
  (
    await h.db
      .selectFrom('audit_events')
      .select('target_id')
      .where('workspace_id', '=', workspaceId)
      .where('tool', '=', consumer)
      .orderBy('id')
      .execute()
  ).map((row) => row.target_id);
const reset = () => {
  for (const list of Object.values(handed)) list.length = 0;
  failOn.clear();
};

describe('outbox relay', () => {
  it('leaves the consumers to the relay and hands each event only to the consumers subscribed to it', async () => {
    reset();
    await createContact(ws.apiKey, 'Ada');
    const task = await h.request('POST', '/v1/tasks', { token: ws.apiKey, body: { title: 'Call Ada' } });
    expect(task.status).toBe(201);
    const events = await eventsOf(ws.id);
    expect(events.map((e) => e.name)).toEqual(['contact.created', 'task.created']);
    // The write committed its event and nothing of any consumer.
    expect(events.every((e) => e.published_at === null)).toBe(true);
    expect(await effects('everything', ws.id)).toEqual([]);

    expect(await h.relay()).toBe(2);
    const [contactEvent, taskEvent] = events.map((e) => e.id);
    expect(handed.flaky).toEqual([contactEvent]);
    expect(handed['tasks-only']).toEqual([taskEvent]);
    expect(handed.everything).toEqual([contactEvent, taskEvent]);
    expect((await eventsOf(ws.id)).every((e) => e.published_at !== null)).toBe(true);
    expect(await h.relay()).toBe(0);
    expect(await effects('everything', ws.id)).toEqual([contactEvent, taskEvent]);
  });

  it('keeps each workspace in order and takes effect once per event though a consumer fails mid-batch and the service restarts', async () => {
    reset();
    const before = (await eventsOf(ws.id)).length;
    for (const name of ['c1', 'c2', 'c3', 'c4', 'c5']) await createContact(ws.apiKey, name);
    await createContact(other.apiKey, 'n1');
    await createContact(other.apiKey, 'n2');
    const mine = (await eventsOf(ws.id)).slice(before).map((e) => e.id);
    const theirs = (await eventsOf(other.id)).map((e) => e.id);
    failOn.add(mine[2]!);

    await h.relay();
    // flaky took effect on the events before the one it fails on; the rest of the workspace waits for it.
    expect((await effects('flaky', ws.id)).slice(-2)).toEqual(mine.slice(0, 2));
    expect((await effects('everything', ws.id)).slice(-5)).toEqual(mine);
    // The other workspace is not held back.
    expect(await effects('flaky', other.id)).toEqual(theirs);
    const waiting = await h.db
      .selectFrom('outbox_events')
      .select('id')
      .where('published_at', 'is', null)
      .orderBy('id')
      .execute();
    expect(waiting.map((e) => e.id)).toEqual(mine.slice(2));

    h = await h.restart();
    failOn.clear();
    handed.everything!.length = 0;
    await h.relay();
    expect((await effects('flaky', ws.id)).slice(-5)).toEqual(mine);
    // Handed again only to the consumer that had not taken it: at least once to consumers, once in effect.
    expect(handed.everything).toEqual([]);
    expect(new Set(await effects('everything', ws.id)).size).toBe(
      (await effects('everything', ws.id)).length,
    );
    expect(new Set(await effects('flaky', ws.id)).size).toBe((await effects('flaky', ws.id)).length);
    expect(
      await h.db.selectFrom('outbox_events').select('id').where('published_at', 'is', null).execute(),
    ).toEqual([]);
    expect(await h.db.selectFrom('outbox_consumptions').selectAll().execute()).toEqual([]);
  });

  it('gives an event up for a consumer that keeps failing on it, so the workspace flows again, and shows it to the operator', async () => {
    reset();
    await h.relay();
    const before = (await eventsOf(ws.id)).length;
    for (const name of ['g1', 'g2', 'g3']) await createContact(ws.apiKey, name);
    const mine = (await eventsOf(ws.id)).slice(before).map((e) => e.id);
    failOn.add(mine[0]!);
    failOn.add(mine[1]!);

    await h.relay();
    await h.relay();
    const failing = await h.admin('GET', '/outbox-failures');
    expect(failing.status, failing.text).toBe(200);
    const rows = failing.body.outbox_failures.filter((f: any) => f.workspace_id === ws.id);
    expect(rows).toEqual([
      expect.objectContaining({
        consumer: 'flaky',
        event_id: mine[0],
        event_name: 'contact.created',
        state: 'failing',
        attempts: 2,
        last_error: `flaky fails on ${mine[0]}`,
        gave_up_at: null,
      }),
    ]);
    expect((await h.request('GET', '/metrics')).text).toMatch(/^wos_outbox_failures\{state="failing"\} 1$/m);
    // The relay still retries it: not the operator's to dismiss yet.
    expect((await h.admin('DELETE', `/outbox-failures/${rows[0].id}`)).status).toBe(409);

    // The first event fails for the whole give-up time; the second then fails once and waits its turn.
    h.clock.advance(60 * 60_000);
    await h.relay();
    let states = (await h.admin('GET', '/outbox-failures')).body.outbox_failures.filter(
      (f: any) => f.workspace_id === ws.id,
    );
    expect(states.map((f: any) => [f.event_id, f.state, f.attempts])).toEqual([
      [mine[0], 'given_up', 3],
      [mine[1], 'failing', 1],
    ]);
    // The second succeeds on its next attempt: its failure is forgotten and the third follows it.
    failOn.delete(mine[1]!);
    await h.relay();
    expect((await effects('flaky', ws.id)).slice(-2)).toEqual(mine.slice(1));
    expect((await effects('everything', ws.id)).slice(-3)).toEqual(mine);
    expect(
      await h.db.selectFrom('outbox_events').select('id').where('published_at', 'is', null).execute(),
    ).toEqual([]);
    states = (await h.admin('GET', '/outbox-failures')).body.outbox_failures.filter(
      (f: any) => f.workspace_id === ws.id,
    );
    expect(states.map((f: any) => [f.event_id, f.state])).toEqual([[mine[0], 'given_up']]);
    expect((await h.request('GET', '/metrics')).text).toMatch(/^wos_outbox_failures\{state="given_up"\} 1$/m);

    const dismissed = await h.admin('DELETE', `/outbox-failures/${states[0].id}`);
    expect(dismissed.status, dismissed.text).toBe(200);
    expect(dismissed.body).toMatchObject({ dismissed: true, failure_id: states[0].id });
    expect((await h.admin('DELETE', `/outbox-failures/${states[0].id}`)).status).toBe(404);
    expect(await h.db.selectFrom('outbox_failures').selectAll().execute()).toEqual([]);
    // Given up means never handed to that consumer again.
    failOn.clear();
    handed.flaky!.length = 0;
    await h.relay();
    expect(handed.flaky).toEqual([]);
  });

  it('reports the age of the oldest unrelayed event in /metrics', async () => {
    await createContact(ws.apiKey, 'lagging');
    h.clock.advance(4000);
    const lagging = await h.request('GET', '/metrics');
    expect(lagging.text).toMatch(/^wos_outbox_lag_seconds 4$/m);
    await h.relay();
    const caughtUp = await h.request('GET', '/metrics');
    expect(caughtUp.text).toMatch(/^wos_outbox_lag_seconds 0$/m);
    expect(caughtUp.text).toMatch(/^wos_outbox_relay_delay_seconds_count [1-9]\d*$/m);
  });

  it.runIf(usingPostgres)('shares the work between two nodes without handing an event twice', async () => {
    reset();
    const sibling = await h.startSibling();
    try {
      const starts = new Map<string, number>();
      for (const workspace of [ws, other]) starts.set(workspace.id, (await eventsOf(workspace.id)).length);
      // Both nodes relay over and over while the two workspaces write (each workspace one write at a time).
      let writing = true;
      const relaying = (async () => {
        while (writing) await Promise.all([h.relay(), sibling.deps.relay.pass()]);
      })();
      try {
        for (let i = 0; i < 30; i++) {
          await Promise.all([
            createContact(ws.apiKey, `node test ${i}`),
            createContact(other.apiKey, `node test ${i}`),
          ]);
        }
      } finally {
        writing = false;
        await relaying;
      }
      await Promise.all([h.relay(), sibling.deps.relay.pass()]);
      for (const workspace of [ws, other]) {
        const created = (await eventsOf(workspace.id)).slice(starts.get(workspace.id)).map((e) => e.id);
        expect(created).toHaveLength(30);
        // Each event once, in the workspace's order, whichever node handed it on.
        expect(handed.flaky!.filter((id) => created.includes(id))).toEqual(created);
        expect((await effects('everything', workspace.id)).slice(-30)).toEqual(created);
      }
    } finally {
      await sibling.app.close();
    }
  });
});

describe('relay nudged by writes', () => {
  it('hands an event on right after its write commits when the worker is on, without waiting for a poll', async () => {
    const node = await Harness.start({
      registry: buildRegistry([crmModule, tasksModule, probes]),
      env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '3600000' },
    });
    try {
      const workspace = await node.workspace('Nudged', ['crm', 'tasks']);
      const res = await node.request('POST', '/v1/contacts', {
        token: workspace.apiKey,
        body: { name: 'Quick' },
      });
      expect(res.status).toBe(201);
      await vi.waitFor(
        async () => {
          const [event] = await node.db
            .selectFrom('outbox_events')
            .selectAll()
            .where('workspace_id', '=', workspace.id)
            .execute();
          if (!event?.published_at) throw new Error('not relayed yet');
        },
        { timeout: 5000, interval: 10 },
      );
    } finally {
      await node.close();
    }
  });
});

describe('the product consumers through the relay', () => {
  it('creates webhook deliveries and rule notifications once per event, for subscriptions older than the event', async () => {
    const node = await Harness.start({
      env: { WOS_WEBHOOK_ALLOW_PRIVATE: 'true', WOS_OUTBOUND_ALLOWED_PORTS: '9' },
    });
    try {
      const workspace = await node.workspace('Consumers');
      const call = (method: string, url: string, body?: unknown) =>
        node.request(method, url, { token: workspace.apiKey, body });
      const hook = await call('POST', '/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        event_types: ['contact.created'],
      });
      expect(hook.status).toBe(201);
      const rule = await call('POST', '/v1/notifications/rules', {
        name: 'New contact',
        event_type: 'contact.created',
        recipient_ids: ['sales'],
        channels: ['in_app'],
        title: 'New: {{name}}',
      });
      expect(rule.status).toBe(201);
      const first = await call('POST', '/v1/contacts', { name: 'Before the late hook' });
      // Created after the first contact's event, before the relay passes: it must not receive that event.
      const late = await call('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/late', event_types: ['*'] });
      expect(late.status).toBe(201);

      const deliveries = (id: string) =>
        node.db
          .selectFrom('webhook_deliveries')
          .selectAll()
          .where('workspace_id', '=', workspace.id)
          .where('endpoint_id', '=', id)
          .execute();
      const notifications = () =>
        node.db.selectFrom('notifications').selectAll().where('workspace_id', '=', workspace.id).execute();
      expect(await deliveries(hook.body.webhook.id)).toEqual([]);
      expect(await notifications()).toEqual([]);

      await node.relay();
      await node.relay();
      const [event] = await node.db
        .selectFrom('outbox_events')
        .selectAll()
        .where('request_id', '=', first.body.request_id)
        .execute();
      expect((await deliveries(hook.body.webhook.id)).map((d) => d.event_id)).toEqual([event!.id]);
      expect(await notifications()).toMatchObject([
        { recipient_id: 'sales', title: 'New: Before the late hook', event_id: event!.id },
      ]);
      // The late '*' endpoint gets its own creation and the notification.created the rule emitted after it.
      const lateTypes = (await deliveries(late.body.webhook.id)).map((d) => d.event_type).sort();
      expect(lateTypes).toEqual(['notification.created', 'webhook_endpoint.created']);
    } finally {
      await node.close();
    }
  });
});
