// Support queues and tickets: schemas, defaults, filters, status rules, idempotency and tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Support');
  other = await h.workspace('Elsewhere');
});
afterAll(() => h.close());

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const events = (requestId: string) =>
  h.db
    .selectFrom('outbox_events')
    .select(['name', 'payload'])
    .where('request_id', '=', requestId)
    .orderBy('id')
    .execute();

async function queue(body: Record<string, unknown>) {
  const res = await post('/v1/support/queues', { name: 'Queue', ...body });
  expect(res.status, res.text).toBe(201);
  return res.body.queue;
}

describe('support queues', () => {
  it('creates a queue with defaults, an audit event and support_queue.created', async () => {
    const res = await post('/v1/support/queues', {
      key: 'billing',
      name: 'Billing',
      first_response_target_minutes: 60,
    });
    expect(res.status).toBe(201);
    expect(res.body.queue).toMatchObject({
      key: 'billing',
      name: 'Billing',
      status: 'active',
      default_priority: 'normal',
      default_assignee_id: null,
      first_response_target_minutes: 60,
      next_response_target_minutes: null,
      custom_fields: {},
    });
    expect(res.body.queue.id).toMatch(/^sq_/);
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(audit).toMatchObject([
      {
        target_type: 'support_queue',
        target_id: res.body.queue.id,
        action: 'create',
        tool: 'create_support_queue',
      },
    ]);
    expect((await events(res.body.request_id)).map((e) => e.name)).toEqual(['support_queue.created']);
    expect((await get(`/v1/support/queues/${res.body.queue.id}`)).body.queue.key).toBe('billing');
  });

  it('keeps keys unique in the workspace but not across workspaces', async () => {
    await queue({ key: 'unique-key' });
    const again = await post('/v1/support/queues', { key: 'unique-key', name: 'Again' });
    expect(again.status).toBe(400);
    expect(again.body.error.field_errors[0].field).toBe('key');
    const elsewhere = await post('/v1/support/queues', { key: 'unique-key', name: 'Other' }, other.apiKey);
    expect(elsewhere.status).toBe(201);
  });

  it('lets one of several concurrent creates with the same key win; the others get validation_failed', async () => {
    const results = await Promise.all(
      [1, 2, 3, 4].map((n) => post('/v1/support/queues', { key: 'race', name: `Racer ${n}` })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 400, 400, 400]);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body.error.field_errors[0].field).toBe('key');
  });

  it('rejects unknown fields, negative targets and bad enums', async () => {
    const res = await post('/v1/support/queues', {
      key: 'x1',
      name: 'X',
      first_response_target_minutes: -1,
      color: 'red',
      default_priority: 'asap',
    });
    expect(res.status).toBe(400);
    const fields = res.body.error.field_errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['color', 'default_priority', 'first_response_target_minutes']);
    const missing = await post('/v1/support/queues', { name: 'No key' });
    expect(missing.body.error.field_errors).toEqual([{ field: 'key', message: 'is required' }]);
  });

  it('replays a create with the same key and body, and conflicts on a different body', async () => {
    const first = await post('/v1/support/queues', { key: 'idem-q', name: 'Idem', idempotency_key: 'q-1' });
    const again = await post('/v1/support/queues', { key: 'idem-q', name: 'Idem', idempotency_key: 'q-1' });
    expect(again.status).toBe(200);
    expect(again.body.queue).toEqual(first.body.queue);
    const conflict = await post('/v1/support/queues', {
      key: 'idem-q2',
      name: 'Idem',
      idempotency_key: 'q-1',
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');
  });

  it('lists by query, status and custom field, over REST and MCP', async () => {
    await queue({
      key: 'vip',
      name: 'VIP desk',
      status: 'paused',
      custom_fields: { tier: 'gold', level: 3, urgent: true },
    });
    await queue({ key: 'std', name: 'Standard desk', custom_fields: { tier: 'silver', level: 1 } });
    const byQuery = await get('/v1/support/queues?query=desk');
    expect(byQuery.body.queues.map((q: { key: string }) => q.key)).toEqual(['std', 'vip']);
    const paused = await get('/v1/support/queues?status=paused');
    expect(paused.body.queues.map((q: { key: string }) => q.key)).toEqual(['vip']);
    for (const [key, value, expected] of [
      ['tier', 'gold', ['vip']],
      ['level', '1', ['std']],
      ['urgent', 'true', ['vip']],
      ['tier', 'bronze', []],
    ] as const) {
      const res = await get(`/v1/support/queues?custom_field_key=${key}&custom_field_value=${value}`);
      expect(
        res.body.queues.map((q: { key: string }) => q.key),
        `${key}=${value}`,
      ).toEqual(expected);
    }
    const half = await get('/v1/support/queues?custom_field_key=tier');
    expect(half.body.error.field_errors[0].field).toBe('custom_field_value');
    const mcp = await h.callTool(ws.mcpToken, 'list_support_queues', {
      custom_field_key: 'tier',
      custom_field_value: 'gold',
    });
    expect(mcp.body.queues.map((q: { key: string }) => q.key)).toEqual(['vip']);
    const page = await get('/v1/support/queues?limit=1');
    expect(page.body.queues).toHaveLength(1);
    const next = await get(`/v1/support/queues?limit=1&cursor=${page.body.next_cursor}`);
    expect(next.body.queues[0].id < page.body.queues[0].id).toBe(true);
  });
});

describe('support tickets', () => {
  let q: { id: string };
  let contact: { id: string };
  beforeAll(async () => {
    q = await queue({ key: 'tickets', default_priority: 'high', default_assignee_id: 'agent-7' });
    contact = (await post('/v1/contacts', { name: 'Rita Requester', email: 'Rita@Example.com' })).body
      .contact;
  });

  it('takes priority, assignee and channel defaults, and the requester from a contact', async () => {
    const res = await post('/v1/support/tickets', {
      queue_id: q.id,
      subject: 'Printer on fire',
      requester: { contact_id: contact.id },
    });
    expect(res.status).toBe(201);
    expect(res.body.ticket).toMatchObject({
      queue_id: q.id,
      subject: 'Printer on fire',
      status: 'new',
      priority: 'high',
      assignee_id: 'agent-7',
      channel: 'api',
      requester: { contact_id: contact.id, name: 'Rita Requester', email: 'rita@example.com' },
      tags: [],
      sla: { first_response: null, next_response: null, resolution: null, breached: false },
    });
    expect((await events(res.body.request_id)).map((e) => e.name)).toEqual(['ticket.created']);
    const mcp = await h.callTool(ws.mcpToken, 'create_support_ticket', {
      queue_id: q.id,
      subject: 'Via MCP',
      priority: 'low',
      requester: { email: 'walk-in@example.com', name: 'Walk In' },
      tags: ['a', 'b', 'a'],
    });
    expect(mcp.body.ticket).toMatchObject({
      channel: 'mcp',
      priority: 'low',
      tags: ['a', 'b'],
      requester: { contact_id: null, email: 'walk-in@example.com' },
    });
  });

  it('requires a subject, an existing active queue and a requester email or contact', async () => {
    const noSubject = await post('/v1/support/tickets', { queue_id: q.id });
    expect(noSubject.body.error.field_errors).toEqual([{ field: 'subject', message: 'is required' }]);
    const unknownQueue = await post('/v1/support/tickets', { queue_id: 'sq_missing', subject: 'x' });
    expect(unknownQueue.status).toBe(404);
    for (const status of ['paused', 'archived']) {
      const closed = await queue({ key: `closed-${status}`, status });
      const res = await post('/v1/support/tickets', { queue_id: closed.id, subject: 'x' });
      expect(res.status).toBe(400);
      expect(res.body.error.field_errors[0]).toMatchObject({ field: 'queue_id' });
    }
    const nameOnly = await post('/v1/support/tickets', {
      queue_id: q.id,
      subject: 'x',
      requester: { name: 'No Email' },
    });
    expect(nameOnly.body.error.field_errors[0].field).toBe('requester.email');
    const extra = await post('/v1/support/tickets', {
      queue_id: q.id,
      subject: 'x',
      requester: { email: 'a@b.co', phone: '1' },
    });
    expect(extra.body.error.field_errors[0].field).toBe('requester.phone');
    const count = await h.db
      .selectFrom('support_tickets')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('subject', '=', 'x')
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('replays and conflicts on idempotency keys', async () => {
    const body = { queue_id: q.id, subject: 'Retry me', idempotency_key: 't-1' };
    const first = await post('/v1/support/tickets', body);
    const again = await post('/v1/support/tickets', body);
    expect(again.status).toBe(200);
    expect(again.body.ticket.id).toBe(first.body.ticket.id);
    const conflict = await post('/v1/support/tickets', { ...body, subject: 'Changed' });
    expect(conflict.status).toBe(409);
  });

  it('updates fields and status: solving resolves, reopening clears, closing is final', async () => {
    const t = (
      await post('/v1/support/tickets', {
        queue_id: q.id,
        subject: 'Lifecycle',
        custom_fields: { a: 1, b: 2 },
      })
    ).body.ticket;
    const upd = await patch(`/v1/support/tickets/${t.id}`, {
      priority: 'urgent',
      assignee_id: null,
      tags: ['x'],
      custom_fields: { a: null, c: 'new' },
    });
    expect(upd.status).toBe(200);
    expect(upd.body.ticket).toMatchObject({
      priority: 'urgent',
      assignee_id: null,
      tags: ['x'],
      custom_fields: { b: 2, c: 'new' },
    });
    expect((await events(upd.body.request_id)).map((e) => e.name)).toEqual(['ticket.updated']);

    const solved = await patch(`/v1/support/tickets/${t.id}`, { status: 'solved' });
    expect(solved.body.ticket.resolved_at).toBe(h.clock.now().toISOString());
    const evs = await events(solved.body.request_id);
    expect(evs.map((e) => e.name)).toEqual(['ticket.status_changed']);
    expect(JSON.parse(evs[0]!.payload)).toMatchObject({
      previous_status: 'new',
      ticket: { status: 'solved' },
    });
    const audit = await h.db
      .selectFrom('audit_events')
      .select('changed_fields')
      .where('request_id', '=', solved.body.request_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(audit.changed_fields)).toEqual(['status', 'resolved_at']);

    const reopened = await h.callTool(ws.mcpToken, 'update_support_ticket', {
      ticket_id: t.id,
      status: 'open',
    });
    expect(reopened.body.ticket).toMatchObject({ status: 'open', resolved_at: null });
    const closed = await patch(`/v1/support/tickets/${t.id}`, { status: 'closed' });
    expect(closed.body.ticket).toMatchObject({ status: 'closed', closed_at: h.clock.now().toISOString() });
    expect(closed.body.ticket.resolved_at).not.toBeNull();
    const again = await patch(`/v1/support/tickets/${t.id}`, { status: 'open' });
    expect(again.status).toBe(400);
    expect(again.body.error.field_errors[0].field).toBe('status');
    const empty = await patch(`/v1/support/tickets/${t.id}`, {});
    expect(empty.status).toBe(400);
  });

  it('lists with every filter', async () => {
    const q2 = await queue({ key: 'filters' });
    const mk = async (body: Record<string, unknown>) =>
      (await post('/v1/support/tickets', { queue_id: q2.id, ...body })).body.ticket;
    const a = await mk({
      subject: 'Refund for order 17',
      priority: 'urgent',
      assignee_id: 'amy',
      requester: { contact_id: contact.id },
    });
    const b = await mk({
      subject: 'Login broken',
      description: 'cannot REFUND anything',
      requester: { email: 'bob@example.com' },
    });
    await patch(`/v1/support/tickets/${b.id}`, { status: 'pending' });
    const ids = async (query: string) =>
      (await get(`/v1/support/tickets?queue_id=${q2.id}&${query}`)).body.tickets.map(
        (t: { id: string }) => t.id,
      );
    expect(await ids('')).toEqual([b.id, a.id]);
    expect(await ids('status=pending')).toEqual([b.id]);
    expect(await ids('priority=urgent')).toEqual([a.id]);
    expect(await ids('assignee_id=amy')).toEqual([a.id]);
    expect(await ids(`requester_contact_id=${contact.id}`)).toEqual([a.id]);
    expect(await ids('requester_email=BOB@example.com')).toEqual([b.id]);
    expect(await ids('query=refund')).toEqual([b.id, a.id]);
    expect(await ids('sla_breached=true')).toEqual([]);
    expect(await ids('sla_breached=false')).toEqual([b.id, a.id]);
    const bad = await get('/v1/support/tickets?status=done');
    expect(bad.body.error.field_errors[0].field).toBe('status');
  });

  it("answers 404 for another workspace's queue and ticket IDs, reading and writing", async () => {
    const t = (await post('/v1/support/tickets', { queue_id: q.id, subject: 'Private' })).body.ticket;
    const foreign = [
      await get(`/v1/support/queues/${q.id}`, other.apiKey),
      await get(`/v1/support/tickets/${t.id}`, other.apiKey),
      await patch(`/v1/support/tickets/${t.id}`, { status: 'solved' }, other.apiKey),
      await post('/v1/support/tickets', { queue_id: q.id, subject: 'Sneaky' }, other.apiKey),
      await post(`/v1/support/tickets/${t.id}/messages`, { direction: 'inbound', body: 'hi' }, other.apiKey),
      await post(`/v1/support/tickets/${t.id}/comments`, { body: 'hi' }, other.apiKey),
      await get(`/v1/support/tickets/${t.id}/messages`, other.apiKey),
      await get(`/v1/support/tickets/${t.id}/comments`, other.apiKey),
      await post(
        '/v1/support/tickets',
        { queue_id: (await queue({ key: 'own-q' })).id, subject: 'x', requester: { contact_id: contact.id } },
        other.apiKey,
      ),
    ];
    for (const res of foreign) {
      expect(res.status, res.text).toBe(404);
      expect(res.body.error.code).toBe('resource_not_found');
    }
    const message = (
      await post(`/v1/support/tickets/${t.id}/messages`, { direction: 'inbound', body: 'mine' })
    ).body.message;
    const comment = (await post(`/v1/support/tickets/${t.id}/comments`, { body: 'mine' })).body.comment;
    expect((await get(`/v1/support/messages/${message.id}`, other.apiKey)).status).toBe(404);
    expect((await get(`/v1/support/comments/${comment.id}`, other.apiKey)).status).toBe(404);
    const mcp = await h.callTool(other.mcpToken, 'update_support_ticket', {
      ticket_id: t.id,
      status: 'solved',
    });
    expect(mcp.body.error.code).toBe('resource_not_found');
    const stored = await h.db
      .selectFrom('support_tickets')
      .select('status')
      .where('id', '=', t.id)
      .executeTakeFirstOrThrow();
    expect(stored.status).toBe('new');
    expect(
      await h.db.selectFrom('support_tickets').selectAll().where('workspace_id', '=', other.id).execute(),
    ).toEqual([]);
  });
});
