// One copy of each shared helper (src/core): string enums name their allowed values in every module, a new
// record's map drops null values in every module, and a relay consumer sees a module switched off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, OPERATOR_TOKEN, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  // Endpoints on a private address are allowed here; nothing is sent (no worker), deliveries are only created.
  h = await Harness.start({ env: { WOS_WEBHOOK_ALLOW_PRIVATE: 'true' } });
  ws = await h.workspace();
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown) =>
  h.request(method, url, { token: ws.apiKey, body });

describe('shared helpers', () => {
  it('a wrong enum value names the allowed values, on CMS, assets and CRM alike', async () => {
    const campaigns = await call('GET', '/v1/marketing/campaigns?status=bogus');
    expect(campaigns.status).toBe(400);
    expect(campaigns.body.error.field_errors).toEqual([
      { field: 'status', message: 'must be one of: planned, active, paused, completed' },
    ]);
    const assets = await call('GET', '/v1/assets?status=bogus');
    expect(assets.body.error.field_errors).toEqual([
      { field: 'status', message: 'must be one of: pending, ready' },
    ]);
    const invoices = await call('GET', '/v1/invoices?status=bogus');
    expect(invoices.body.error.field_errors).toEqual([
      { field: 'status', message: 'must be one of: draft, sent, partially_paid, paid, void' },
    ]);
    const lists: [string, string][] = [
      ['/v1/tasks?status=bogus', 'open, completed, canceled'],
      ['/v1/projects?status=bogus', 'planned, active, on_hold, completed, archived'],
      ['/v1/webhooks?status=bogus', 'active, disabled'],
    ];
    for (const [url, values] of lists) {
      const listed = await call('GET', url);
      expect(listed.body.error.field_errors, url).toEqual([
        { field: 'status', message: `must be one of: ${values}` },
      ]);
    }
  });

  it('a new record stores its map without null values, in support as in CRM', async () => {
    const queue = await call('POST', '/v1/support/queues', {
      key: 'helpers',
      name: 'Helpers',
      custom_fields: { a: 1, b: null },
    });
    expect(queue.status).toBe(201);
    expect(queue.body.queue.custom_fields).toEqual({ a: 1 });
    const ticket = await call('POST', '/v1/support/tickets', {
      queue_id: queue.body.queue.id,
      subject: 'Nulls',
      custom_fields: { tier: 'gold', gone: null },
    });
    expect(ticket.status).toBe(201);
    expect(ticket.body.ticket.custom_fields).toEqual({ tier: 'gold' });
    const contact = await call('POST', '/v1/contacts', { name: 'Ada' });
    const note = await call('POST', '/v1/notes', {
      body: 'x',
      contact_id: contact.body.contact.id,
      custom_fields: { gone: null, kept: true },
    });
    expect(note.body.note.custom_fields).toEqual({ kept: true });
  });

  it("relay consumers skip a workspace whose module is switched off (the pipeline's own module check)", async () => {
    const endpoint = await call('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1/wos',
      event_types: ['contact.created'],
    });
    expect(endpoint.status).toBe(201);
    await call('POST', '/v1/contacts', { name: 'While on' });
    await h.relay();
    const whileOn = await h.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(whileOn).toHaveLength(1);
    const off = await h.request('PATCH', `/admin/v1/workspaces/${ws.id}`, {
      token: OPERATOR_TOKEN,
      body: { modules: { integrations: false } },
    });
    expect(off.status).toBe(200);
    const contact = await call('POST', '/v1/contacts', { name: 'While off' });
    await h.relay();
    const deliveries = await h.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(deliveries).toEqual(whileOn);
    const published = await h.db
      .selectFrom('outbox_events')
      .select('published_at')
      .where('request_id', '=', contact.body.request_id)
      .executeTakeFirstOrThrow();
    expect(published.published_at).not.toBeNull();
  });
});
