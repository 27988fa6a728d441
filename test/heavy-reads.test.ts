// Heavy reads run their queries on read-only connections off the main thread, with a time limit: a slow
// one does not hold up other workspaces, a runaway one is stopped, and none of them can write.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../src/core/catalogue.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import { newId } from '../src/core/ids.ts';
import { Strict } from '../src/core/schema.ts';
import { crmModule } from '../src/modules/crm/index.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const base = {
  module: 'crm' as const,
  scopes: ['crm:read'] satisfies Scope[],
  kind: 'read' as const,
  summary: 'Test operation',
  description: 'A heavy read that exists only to test the heavy-read connections.',
  heavy: true,
};

const heavyOperations = [
  defineOperation({
    ...base,
    name: 'heavy_list_contacts',
    input: Strict({}),
    rest: { method: 'GET', path: '/v1/heavy/contacts' },
    responseKey: 'contacts',
    response: Type.Object({
      contacts: Type.Array(Type.Object({ id: Type.String(), name: Type.String() })),
      request_id: Type.String(),
    }),
    handler: async (ctx) => {
      const contacts = await ctx.db
        .selectFrom('contacts')
        .select(['id', 'name'])
        .where('workspace_id', '=', ctx.workspaceId)
        .orderBy('name')
        .execute();
      return { body: { contacts } };
    },
  }),
  defineOperation({
    ...base,
    name: 'heavy_count_to',
    input: Strict({ count: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }) }),
    rest: { method: 'GET', path: '/v1/heavy/count' },
    responseKey: 'count',
    response: Type.Object({ count: Type.Integer(), request_id: Type.String() }),
    // A query that only burns time: both databases count row by row.
    handler: async (ctx, input) => {
      const { rows } = await sql<{ n: number }>`
        with recursive c(x) as (select 1 union all select x + 1 from c where x < ${input.count})
        select count(*) as n from c`.execute(ctx.db);
      return { body: { count: Number(rows[0]!.n) } };
    },
  }),
  defineOperation({
    ...base,
    name: 'heavy_write_attempt',
    input: Strict({}),
    rest: { method: 'GET', path: '/v1/heavy/write' },
    responseKey: 'contact',
    response: Type.Object({ contact: Type.Null(), request_id: Type.String() }),
    handler: async (ctx) => {
      await ctx.db
        .insertInto('contacts')
        .values({
          workspace_id: ctx.workspaceId,
          id: newId('con'),
          name: 'written by a heavy read',
          email: null,
          phone: null,
          company_id: null,
          company_name: null,
          notes: null,
          created_at: ctx.now,
          updated_at: ctx.now,
        })
        .execute();
      return { body: { contact: null } };
    },
  }),
];

const registry = () =>
  buildRegistry([{ ...crmModule, operations: [...crmModule.operations, ...heavyOperations] }]);

describe('heavy reads', () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;

  beforeAll(async () => {
    h = await Harness.start({ registry: registry() });
    a = await h.workspace('Heavy A');
    b = await h.workspace('Heavy B');
  });
  afterAll(() => h.close());

  const get = (url: string, ws: TestWorkspace) => h.request('GET', url, { token: ws.apiKey });

  it('returns the committed rows of its own workspace', async () => {
    for (const name of ['Carol', 'Alice', 'Bob']) {
      expect((await h.request('POST', '/v1/contacts', { token: a.apiKey, body: { name } })).status).toBe(201);
    }
    await h.request('POST', '/v1/contacts', { token: b.apiKey, body: { name: 'Other workspace' } });
    const listed = await get('/v1/heavy/contacts', a);
    expect(listed.status).toBe(200);
    expect(listed.body.contacts.map((c: { name: string }) => c.name)).toEqual(['Alice', 'Bob', 'Carol']);
    // A product search with a text query is heavy too, and sees the same rows.
    const searched = await get('/v1/contacts?query=o', a);
    expect(searched.status).toBe(200);
    expect(searched.body.contacts.map((c: { name: string }) => c.name).sort()).toEqual(['Bob', 'Carol']);
    expect((await get('/v1/heavy/count?count=1000', a)).body.count).toBe(1000);
  });

  it('lets a create in another workspace finish while a slow heavy read runs', async () => {
    // Workspace A pays per call, so its read's units and call event commit after the read (never holding
    // the write transaction that B's create needs).
    await h.admin('PATCH', `/workspaces/${a.id}`, { billing: { credit_units: 100 } });
    let heavyDone = false;
    // Counting to 10M takes seconds on both databases, far longer than the create.
    const heavy = get('/v1/heavy/count?count=10000000', a).then((result) => {
      heavyDone = true;
      return result;
    });
    // Wait for the slow read to start (on the main thread it would block these timers until it ended).
    while (h.service.deps.database.heavySlots.running(a.id) === 0 && !heavyDone) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const created = await h.request('POST', '/v1/contacts', { token: b.apiKey, body: { name: 'Meanwhile' } });
    expect(created.status).toBe(201);
    expect(heavyDone).toBe(false);
    const result = await heavy;
    expect(result.status).toBe(200);
    expect(result.body.count).toBe(10_000_000);
    const workspace = await h.admin('GET', `/workspaces/${a.id}`);
    expect(workspace.body.workspace.billing.credit_units).toBe(99);
    await h.admin('PATCH', `/workspaces/${a.id}`, { billing: { credit_units: null } });
  });

  it('cannot write: its connection is read-only', async () => {
    const attempt = await get('/v1/heavy/write', a);
    expect(attempt.status).toBe(500);
    expect(attempt.body.error.code).toBe('internal_error');
    const written = await h.db
      .selectFrom('contacts')
      .select('id')
      .where('workspace_id', '=', a.id)
      .where('name', '=', 'written by a heavy read')
      .execute();
    expect(written).toEqual([]);
  });
});

describe('heavy reads over their time limit', () => {
  let h: Harness;
  let a: TestWorkspace;

  beforeAll(async () => {
    h = await Harness.start({
      registry: registry(),
      env: { WOS_HEAVY_READ_TIMEOUT_MS: '1000', WOS_HEAVY_READ_POOL_SIZE: '1' },
    });
    a = await h.workspace('Runaway');
  });
  afterAll(() => h.close());

  it('fails with query_timeout, and the pool keeps serving', async () => {
    // Counting to 10^9 takes minutes: only the time limit ends it.
    const runaway = await h.request('GET', '/v1/heavy/count?count=1000000000', { token: a.apiKey });
    expect(runaway.status).toBe(504);
    expect(runaway.body.error.code).toBe('query_timeout');
    expect(runaway.body.error.message).toContain('1000 ms');
    // The one worker was replaced (SQLite) or its connection kept (PostgreSQL): the next heavy read works.
    await h.request('POST', '/v1/contacts', { token: a.apiKey, body: { name: 'After the timeout' } });
    const after = await h.request('GET', '/v1/heavy/contacts', { token: a.apiKey });
    expect(after.status).toBe(200);
    expect(after.body.contacts.map((c: { name: string }) => c.name)).toEqual(['After the timeout']);
    // The timed-out call is recorded like any failed call.
    await h.flushUsage();
    const events = await h.db
      .selectFrom('call_events')
      .select(['http_status', 'error_code'])
      .where('workspace_id', '=', a.id)
      .where('error_code', '=', 'query_timeout')
      .execute();
    expect(events).toEqual([{ http_status: 504, error_code: 'query_timeout' }]);
  });
});
