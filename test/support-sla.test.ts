// SLA clocks driven by an injectable clock, the conversation (messages) versus internal comments, and the
// support summary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, MutableClock, type TestWorkspace } from './helpers/harness.ts';

const MINUTE = 60_000;
let h: Harness;
let clock: MutableClock;
let ws: TestWorkspace;
let queueId: string;

beforeAll(async () => {
  clock = new MutableClock();
  h = await Harness.start({ clock });
  ws = await h.workspace('SLA');
  const queue = await post('/v1/support/queues', {
    key: 'sla',
    name: 'SLA desk',
    first_response_target_minutes: 30,
    next_response_target_minutes: 60,
    resolution_target_minutes: 240,
  });
  queueId = queue.body.queue.id;
});
afterAll(() => h.close());

function post(url: string, body: unknown) {
  return h.request('POST', url, { token: ws.apiKey, body });
}
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const at = (offsetMinutes: number, start: string) =>
  new Date(Date.parse(start) + offsetMinutes * MINUTE).toISOString();
const ticket = async (id: string) => (await get(`/v1/support/tickets/${id}`)).body.ticket;
const message = (id: string, direction: 'inbound' | 'outbound', body = `${direction} message`) =>
  post(`/v1/support/tickets/${id}/messages`, { direction, body });

describe('SLA', () => {
  it('sets due times on creation and reads pending, then breached, without sleeping', async () => {
    const start = clock.now().toISOString();
    const created = (await post('/v1/support/tickets', { queue_id: queueId, subject: 'Slow' })).body.ticket;
    expect(created).toMatchObject({
      first_response_due_at: at(30, start),
      resolution_due_at: at(240, start),
      next_response_due_at: null,
      sla: { first_response: 'pending', next_response: null, resolution: 'pending', breached: false },
    });
    const unbreached = await get(`/v1/support/tickets?queue_id=${queueId}&sla_breached=false`);
    expect(unbreached.body.tickets.map((t: { id: string }) => t.id)).toContain(created.id);
    clock.advance(31 * MINUTE);
    expect((await ticket(created.id)).sla).toEqual({
      first_response: 'breached',
      next_response: null,
      resolution: 'pending',
      breached: true,
    });
    const breached = await get(`/v1/support/tickets?queue_id=${queueId}&sla_breached=true`);
    expect(breached.body.tickets.map((t: { id: string }) => t.id)).toContain(created.id);
    const stillFine = await get(`/v1/support/tickets?queue_id=${queueId}&sla_breached=false`);
    expect(stillFine.body.tickets.map((t: { id: string }) => t.id)).not.toContain(created.id);
    // A late reply stays a breach.
    await message(created.id, 'outbound');
    expect((await ticket(created.id)).sla.first_response).toBe('breached');
  });

  it('meets first response with the first outbound message and runs the next-response clock', async () => {
    const t = (await post('/v1/support/tickets', { queue_id: queueId, subject: 'Fast' })).body.ticket;
    const inbound = await message(t.id, 'inbound', 'still waiting?');
    expect(inbound.status).toBe(201);
    // An inbound message before any reply starts no next-response clock.
    expect(inbound.body.ticket).toMatchObject({
      status: 'new',
      next_response_due_at: null,
      first_responded_at: null,
    });
    clock.advance(10 * MINUTE);
    const reply = await message(t.id, 'outbound', 'on it');
    expect(reply.body.ticket).toMatchObject({
      status: 'open',
      first_responded_at: clock.now().toISOString(),
      sla: { first_response: 'met', next_response: null, resolution: 'pending', breached: false },
    });
    const replyEvents = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('request_id', '=', reply.body.request_id)
      .orderBy('id')
      .execute();
    expect(replyEvents.map((e) => e.name)).toEqual(['ticket.status_changed', 'ticket.message_added']);

    clock.advance(5 * MINUTE);
    const followUp = await message(t.id, 'inbound', 'thanks, one more thing');
    const inboundAt = clock.now().toISOString();
    expect(followUp.body.ticket).toMatchObject({
      next_response_due_at: at(60, inboundAt),
      sla: { next_response: 'pending' },
    });
    clock.advance(20 * MINUTE);
    // A second inbound message does not push the running clock.
    expect((await message(t.id, 'inbound', 'hello?')).body.ticket.next_response_due_at).toBe(
      at(60, inboundAt),
    );
    clock.advance(41 * MINUTE);
    expect((await ticket(t.id)).sla).toMatchObject({ next_response: 'breached', breached: true });
    await message(t.id, 'outbound', 'sorry for the wait');
    expect((await ticket(t.id)).sla.next_response).toBe('breached');

    // A new inbound message after that reply restarts the clock, met this time.
    await message(t.id, 'inbound', 'ok');
    clock.advance(5 * MINUTE);
    const met = await message(t.id, 'outbound', 'done');
    expect(met.body.ticket.sla.next_response).toBe('met');
  });

  it('meets or breaches resolution when solved, and reopens on an inbound message', async () => {
    const t = (await post('/v1/support/tickets', { queue_id: queueId, subject: 'Resolve me' })).body.ticket;
    clock.advance(100 * MINUTE);
    const solved = await h.request('PATCH', `/v1/support/tickets/${t.id}`, {
      token: ws.apiKey,
      body: { status: 'solved' },
    });
    expect(solved.body.ticket.sla.resolution).toBe('met');
    clock.advance(300 * MINUTE);
    expect((await ticket(t.id)).sla.resolution).toBe('met');
    const reopened = await message(t.id, 'inbound', 'it broke again');
    expect(reopened.body.ticket).toMatchObject({
      status: 'open',
      resolved_at: null,
      sla: { resolution: 'breached' },
    });

    const late = (await post('/v1/support/tickets', { queue_id: queueId, subject: 'Late' })).body.ticket;
    clock.advance(241 * MINUTE);
    const lateSolved = await h.callTool(ws.mcpToken, 'update_support_ticket', {
      ticket_id: late.id,
      status: 'solved',
    });
    expect(lateSolved.body.ticket.sla.resolution).toBe('breached');
  });

  it('has no SLA without queue targets, and closed tickets take no messages', async () => {
    const plain = await post('/v1/support/queues', { key: 'no-sla', name: 'No SLA' });
    const t = (await post('/v1/support/tickets', { queue_id: plain.body.queue.id, subject: 'Whenever' })).body
      .ticket;
    clock.advance(10_000 * MINUTE);
    expect((await ticket(t.id)).sla).toEqual({
      first_response: null,
      next_response: null,
      resolution: null,
      breached: false,
    });
    await h.request('PATCH', `/v1/support/tickets/${t.id}`, { token: ws.apiKey, body: { status: 'closed' } });
    const refused = await message(t.id, 'inbound', 'hello?');
    expect(refused.status).toBe(400);
    expect(refused.body.error.field_errors[0].field).toBe('ticket_id');
    const note = await post(`/v1/support/tickets/${t.id}/comments`, { body: 'closed, but noted' });
    expect(note.status).toBe(201);
  });
});

describe('conversation', () => {
  it('keeps comments out of messages, lists both oldest first, and pages', async () => {
    const t = (
      await post('/v1/support/tickets', {
        queue_id: queueId,
        subject: 'Chatty',
        requester: { email: 'req@example.com', name: 'Req' },
      })
    ).body.ticket;
    const m1 = (await message(t.id, 'inbound', 'first')).body.message;
    const c1 = await post(`/v1/support/tickets/${t.id}/comments`, { body: 'internal: customer is VIP' });
    expect(c1.status).toBe(201);
    expect(c1.body.comment).toMatchObject({
      ticket_id: t.id,
      body: 'internal: customer is VIP',
      author: { name: 'api_key for tests' },
    });
    const commentEvents = await h.db
      .selectFrom('outbox_events')
      .select(['name', 'target_id'])
      .where('request_id', '=', c1.body.request_id)
      .execute();
    expect(commentEvents).toEqual([{ name: 'ticket.comment_added', target_id: t.id }]);
    const m2 = (await message(t.id, 'outbound', 'second')).body.message;
    const m3 = (
      await h.callTool(ws.mcpToken, 'add_support_ticket_message', {
        ticket_id: t.id,
        direction: 'inbound',
        body: 'third',
        author: { name: 'Someone Else' },
      })
    ).body.message;
    expect(m1.author).toEqual({ id: null, name: 'Req', email: 'req@example.com' });
    expect(m3.author.name).toBe('Someone Else');

    const messages = await get(`/v1/support/tickets/${t.id}/messages`);
    expect(messages.body.messages.map((m: { id: string }) => m.id)).toEqual([m1.id, m2.id, m3.id]);
    expect(messages.text).not.toContain('VIP');
    const inboundOnly = await get(`/v1/support/tickets/${t.id}/messages?direction=inbound`);
    expect(inboundOnly.body.messages.map((m: { body: string }) => m.body)).toEqual(['first', 'third']);
    const mcpMessages = await h.callTool(ws.mcpToken, 'list_support_ticket_messages', {
      ticket_id: t.id,
      limit: 2,
    });
    expect(mcpMessages.body.messages.map((m: { id: string }) => m.id)).toEqual([m1.id, m2.id]);
    const page2 = await h.callTool(ws.mcpToken, 'list_support_ticket_messages', {
      ticket_id: t.id,
      limit: 2,
      cursor: mcpMessages.body.next_cursor,
    });
    expect(page2.body.messages.map((m: { id: string }) => m.id)).toEqual([m3.id]);
    expect(page2.body.next_cursor).toBeUndefined();

    await post(`/v1/support/tickets/${t.id}/comments`, { body: 'second note', author: { name: 'Lead' } });
    const comments = await get(`/v1/support/tickets/${t.id}/comments`);
    expect(comments.body.comments.map((c: { body: string }) => c.body)).toEqual([
      'internal: customer is VIP',
      'second note',
    ]);
    const stored = await h.db
      .selectFrom('support_ticket_messages')
      .select('body')
      .where('ticket_id', '=', t.id)
      .execute();
    expect(stored.map((r) => r.body)).not.toContain('second note');
  });

  it('replays message and comment creates with their keys, and conflicts on a changed body', async () => {
    const t = (await post('/v1/support/tickets', { queue_id: queueId, subject: 'Idempotent talk' })).body
      .ticket;
    const body = { direction: 'outbound', body: 'Hello once', idempotency_key: 'msg-1' };
    const first = await post(`/v1/support/tickets/${t.id}/messages`, body);
    const again = await post(`/v1/support/tickets/${t.id}/messages`, body);
    expect(again.status).toBe(200);
    expect(again.body.message).toEqual(first.body.message);
    expect(again.body.ticket.id).toBe(t.id);
    expect(
      (await post(`/v1/support/tickets/${t.id}/messages`, { ...body, body: 'Hello twice' })).status,
    ).toBe(409);
    const rows = await h.db
      .selectFrom('support_ticket_messages')
      .select('id')
      .where('ticket_id', '=', t.id)
      .execute();
    expect(rows).toHaveLength(1);

    const comment = { body: 'Note once', idempotency_key: 'com-1' };
    const c1 = await post(`/v1/support/tickets/${t.id}/comments`, comment);
    const c2 = await post(`/v1/support/tickets/${t.id}/comments`, comment);
    expect(c2.status).toBe(200);
    expect(c2.body.comment.id).toBe(c1.body.comment.id);
    expect((await post(`/v1/support/tickets/${t.id}/comments`, { ...comment, body: 'Changed' })).status).toBe(
      409,
    );
    expect((await get(`/v1/support/messages/${first.body.message.id}`)).body.message.body).toBe('Hello once');
    expect((await get(`/v1/support/comments/${c1.body.comment.id}`)).body.comment.body).toBe('Note once');
  });
});

describe('workspace summary', () => {
  it('counts open tickets and SLA breaches in the support section', async () => {
    const fresh = await h.workspace('Summary');
    const p = (url: string, body: unknown) => h.request('POST', url, { token: fresh.apiKey, body });
    const q = (await p('/v1/support/queues', { key: 'q', name: 'Q', first_response_target_minutes: 5 })).body
      .queue;
    const a = (await p('/v1/support/tickets', { queue_id: q.id, subject: 'A' })).body.ticket;
    await p('/v1/support/tickets', { queue_id: q.id, subject: 'B' });
    const solved = (await p('/v1/support/tickets', { queue_id: q.id, subject: 'C' })).body.ticket;
    await h.request('PATCH', `/v1/support/tickets/${solved.id}`, {
      token: fresh.apiKey,
      body: { status: 'solved' },
    });
    let summary = await h.request('GET', '/v1/workspace', { token: fresh.apiKey });
    expect(summary.body.workspace.summary.support).toEqual({ open_tickets: 2, sla_breached: 0 });
    clock.advance(6 * MINUTE);
    await p(`/v1/support/tickets/${a.id}/messages`, { direction: 'outbound', body: 'late' });
    summary = await h.request('GET', '/v1/workspace', { token: fresh.apiKey });
    expect(summary.body.workspace.summary.support).toEqual({ open_tickets: 2, sla_breached: 2 });
  });
});
