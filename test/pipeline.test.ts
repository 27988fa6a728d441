// Pipeline guarantees, with a small module of its own: dry runs roll back, writes must audit, events must be
// declared, event consumers run after the commit (the relay), shared routes dispatch, REST-only raw answers.
import { Type } from '@sinclair/typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../src/core/catalogue.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import { newId } from '../src/core/ids.ts';
import type { ModuleDefinition } from '../src/core/module.ts';
import { Strict } from '../src/core/schema.ts';
import { contactRecord } from '../src/modules/crm/crm-records.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const insertContact =
  (name: string) => async (ctx: Parameters<Parameters<typeof defineOperation>[0]['handler']>[0]) => {
    const id = newId('con');
    await ctx.db
      .insertInto('contacts')
      .values({
        workspace_id: ctx.workspaceId,
        id,
        name,
        email: null,
        phone: null,
        company_id: null,
        company_name: null,
        notes: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .execute();
    return id;
  };

const base = {
  module: 'crm' as const,
  scopes: ['crm:write'] satisfies Scope[],
  summary: 'Test operation',
  description: 'An operation that exists only to test the pipeline guarantees.',
};

// Test-only responses, declared like any operation's (every body is checked against its schema in tests).
const probeOk = Type.Object({ ok: Type.Boolean() }, { additionalProperties: false });
const probeBody = Type.Object(
  { probe: Type.Object({ id: Type.String(), served_by: Type.String() }, { additionalProperties: false }) },
  { additionalProperties: false },
);

/** Attempts of probe_create by name (the collisions input). */
const collided = new Map<string, number>();

const testModule: ModuleDefinition = {
  name: 'crm',
  recordTypes: [contactRecord],
  events: [{ name: 'probe.created', description: 'A probe contact was created.' }],
  eventConsumers: [
    {
      name: 'probe-echo',
      subscribes: ['probe.created'],
      // Writes a second contact for every probe event, when the relay hands it on.
      consume: async (db, _workspaceId, events) => {
        for (const event of events) {
          await db
            .insertInto('contacts')
            .values({
              workspace_id: event.workspace_id,
              id: newId('con'),
              name: `echo of ${event.target_id}`,
              email: null,
              phone: null,
              company_id: null,
              company_name: null,
              notes: null,
              created_at: event.occurred_at,
              updated_at: event.occurred_at,
            })
            .execute();
        }
      },
    },
  ],
  operations: [
    defineOperation({
      ...base,
      name: 'probe_create',
      kind: 'create',
      creates: 'contact',
      dryRun: true,
      input: Strict({
        name: Type.String(),
        fail_after_write: Type.Optional(Type.Boolean()),
        collisions: Type.Optional(Type.Integer({ minimum: 1 })),
      }),
      rest: { method: 'POST', path: '/v1/probes' },
      responseKey: 'contact',
      // A replay answers the whole stored contact: the probe declares the two fields it sets, and no more.
      response: Type.Object({ contact: Type.Object({ id: Type.String(), name: Type.String() }) }),
      handler: async (ctx, input) => {
        const id = await insertContact(input.name)(ctx);
        ctx.audit({ targetType: 'contact', targetId: id });
        ctx.emit({ name: 'probe.created', targetType: 'contact', targetId: id, data: { id } });
        if (input.fail_after_write) throw new Error('boom after the write');
        // The first `collisions` attempts lose to concurrent writes, as a PostgreSQL deadlock would.
        const attempts = (collided.get(input.name) ?? 0) + 1;
        collided.set(input.name, attempts);
        if (attempts <= (input.collisions ?? 0)) {
          throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        }
        return { body: { contact: { id, name: input.name } }, createdId: id };
      },
    }),
    defineOperation({
      ...base,
      name: 'probe_forgets_audit',
      kind: 'action',
      input: Strict({}),
      rest: { method: 'POST', path: '/v1/probes/unaudited' },
      responseKey: 'ok',
      response: probeOk,
      handler: async (ctx) => {
        await insertContact('unaudited')(ctx);
        return { body: { ok: true } };
      },
    }),
    defineOperation({
      ...base,
      name: 'probe_undeclared_event',
      kind: 'action',
      input: Strict({}),
      rest: { method: 'POST', path: '/v1/probes/undeclared' },
      responseKey: 'ok',
      response: probeOk,
      handler: async (ctx) => {
        ctx.emit({ name: 'probe.mystery', data: {} });
        return { body: { ok: true } };
      },
    }),
    defineOperation({
      ...base,
      name: 'probe_update',
      kind: 'update',
      input: Strict({ probe_id: Type.String(), label: Type.Optional(Type.String()) }),
      rest: { method: 'PATCH', path: '/v1/probes/{probe_id}' },
      responseKey: 'probe',
      response: probeBody,
      handler: async (ctx, input) => {
        ctx.audit({ targetType: 'probe', targetId: input.probe_id });
        return { body: { probe: { id: input.probe_id, served_by: 'probe_update' } } };
      },
    }),
    defineOperation({
      ...base,
      name: 'probe_update_legacy',
      kind: 'update',
      deprecated: { replacedBy: 'probe_update' },
      input: Strict({ probe_id: Type.String(), legacy: Type.Boolean() }),
      rest: { method: 'PATCH', path: '/v1/probes/{probe_id}', when: (input) => input.legacy === true },
      responseKey: 'probe',
      response: probeBody,
      handler: async (ctx, input) => {
        ctx.audit({ targetType: 'probe', targetId: input.probe_id });
        return { body: { probe: { id: input.probe_id, served_by: 'probe_update_legacy' } } };
      },
    }),
    defineOperation({
      ...base,
      scopes: ['crm:read'],
      name: 'probe_feed',
      kind: 'read',
      mcp: false,
      input: Strict({}),
      rest: { method: 'GET', path: '/v1/probes/feed' },
      responseKey: 'feed',
      responseMediaType: 'text/plain',
      handler: async () => ({
        body: {},
        raw: { contentType: 'text/plain; charset=utf-8', payload: 'plain feed' },
      }),
    }),
  ],
};

let h: Harness;
let ws: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start({ registry: buildRegistry([testModule]) });
  ws = await h.workspace();
});
afterAll(() => h.close());

const contacts = () =>
  h.db.selectFrom('contacts').select('name').where('workspace_id', '=', ws.id).orderBy('id').execute();

describe('pipeline guarantees', () => {
  it("commits the write, its audit and its outbox event; the consumer's writes follow from the relay", async () => {
    const res = await h.request('POST', '/v1/probes', { token: ws.apiKey, body: { name: 'kept' } });
    expect(res.status).toBe(201);
    expect((await contacts()).map((c) => c.name)).toEqual(['kept']);
    await h.relay();
    expect((await contacts()).map((c) => c.name)).toEqual(['kept', `echo of ${res.body.contact.id}`]);
  });

  it('rolls everything back when the handler fails after writing, and records the failed call', async () => {
    const before = await contacts();
    const res = await h.request('POST', '/v1/probes', {
      token: ws.apiKey,
      body: { name: 'lost', fail_after_write: true },
    });
    expect(res.status).toBe(500);
    expect(res.body.error).toEqual({
      code: 'internal_error',
      message: expect.any(String),
      request_id: res.headers['x-request-id'],
      docs_url: 'http://wos.test/docs/api/errors#internal_error',
    });
    expect(res.text).not.toContain('boom');
    expect(await contacts()).toEqual(before);
    const requestId = res.body.error.request_id;
    expect(
      await h.db.selectFrom('audit_events').selectAll().where('request_id', '=', requestId).execute(),
    ).toEqual([]);
    expect(
      await h.db.selectFrom('outbox_events').selectAll().where('request_id', '=', requestId).execute(),
    ).toEqual([]);
    await h.flushUsage();
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', requestId)
      .execute();
    expect(calls[0]).toMatchObject({ http_status: 500, error_code: 'internal_error', billed_units: 0 });
  });

  it('runs a write again from scratch after a deadlock, keeping only the attempt that committed', async () => {
    const res = await h.request('POST', '/v1/probes', {
      token: ws.apiKey,
      body: { name: 'collided once', collisions: 1, idempotency_key: 'collide-1' },
    });
    expect(res.status, res.text).toBe(201);
    expect(collided.get('collided once')).toBe(2);
    const id = res.body.contact.id;
    expect((await contacts()).filter((c) => c.name === 'collided once')).toHaveLength(1);
    const audits = await h.db
      .selectFrom('audit_events')
      .select('target_id')
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(audits).toEqual([{ target_id: id }]);
    const outbox = await h.db
      .selectFrom('outbox_events')
      .select('target_id')
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(outbox).toEqual([{ target_id: id }]);
    const replay = await h.request('POST', '/v1/probes', {
      token: ws.apiKey,
      body: { name: 'collided once', collisions: 1, idempotency_key: 'collide-1' },
    });
    expect(replay.status).toBe(200);
    expect(replay.body.contact.id).toBe(id);
  });

  it('answers 503 write_conflict with Retry-After when every attempt collides, storing nothing', async () => {
    const before = await contacts();
    const res = await h.request('POST', '/v1/probes', {
      token: ws.apiKey,
      body: { name: 'always collides', collisions: 10 },
    });
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.error).toMatchObject({ code: 'write_conflict', retry_after_seconds: 1 });
    expect(collided.get('always collides')).toBe(3);
    expect(await contacts()).toEqual(before);
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('request_id', '=', res.body.error.request_id)
      .execute();
    expect(audits).toEqual([]);
  });

  it('previews a dry run without writing anything but its usage event', async () => {
    const before = await contacts();
    const res = await h.request('POST', '/v1/probes', {
      token: ws.apiKey,
      body: { name: 'preview', dry_run: true },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ contact: { name: 'preview' }, dry_run: true });
    expect(await contacts()).toEqual(before);
    expect(
      await h.db
        .selectFrom('audit_events')
        .selectAll()
        .where('request_id', '=', res.body.request_id)
        .execute(),
    ).toEqual([]);
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', res.body.request_id)
      .execute();
    expect(calls[0]).toMatchObject({ http_status: 200, billed_units: 1 });
  });

  it('refuses a write without an audit event and an undeclared domain event', async () => {
    const before = await contacts();
    expect((await h.request('POST', '/v1/probes/unaudited', { token: ws.apiKey, body: {} })).status).toBe(
      500,
    );
    expect((await h.request('POST', '/v1/probes/undeclared', { token: ws.apiKey, body: {} })).status).toBe(
      500,
    );
    expect(await contacts()).toEqual(before);
  });

  it('dispatches a shared route to the deprecated operation only when it claims the input', async () => {
    const current = await h.request('PATCH', '/v1/probes/p1', { token: ws.apiKey, body: { label: 'x' } });
    expect(current.body.probe).toEqual({ id: 'p1', served_by: 'probe_update' });
    const legacy = await h.request('PATCH', '/v1/probes/p1', { token: ws.apiKey, body: { legacy: true } });
    expect(legacy.body.probe).toEqual({ id: 'p1', served_by: 'probe_update_legacy' });
  });

  it('answers REST-only raw reads with their own media type', async () => {
    const res = await h.request('GET', '/v1/probes/feed', { token: ws.apiKey });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.text).toBe('plain feed');
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });
});
