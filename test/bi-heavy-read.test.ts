// A write's heavyRead (run_bi_query's path): the read runs on the heavy-read connections before the write
// transaction, so a slow one holds no write lock (another workspace's create finishes meanwhile), it stops at
// the heavy time limit with query_timeout, and then nothing of the write exists.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineOperation } from '../src/core/define-operation.ts';
import { newId } from '../src/core/ids.ts';
import { Strict } from '../src/core/schema.ts';
import { crmModule } from '../src/modules/crm/index.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

// Held heavy reads wait on this gate after their query, so a test decides when they finish instead of racing
// a timer against the machine's speed.
let openGate: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
const closeGate = () => {
  gate = new Promise((resolve) => {
    openGate = resolve;
  });
};

// Counts to `count` in the heavy read (then waits at the gate when `hold`), then writes a contact named after
// the count.
const countThenWrite = defineOperation({
  name: 'count_then_write',
  module: 'crm',
  scopes: ['crm:write'],
  kind: 'action',
  summary: 'Test operation',
  description: 'A write whose heavy read only burns time: exists to test the heavyRead stage of writes.',
  input: Strict({
    count: Type.Integer({ minimum: 1, maximum: 2 ** 31 - 1 }),
    hold: Type.Optional(Type.Boolean()),
  }),
  rest: { method: 'POST', path: '/v1/test/count-then-write' },
  responseKey: 'contact_id',
  response: Type.Object({ contact_id: Type.String(), counted: Type.Integer(), request_id: Type.String() }),
  heavyRead: async (ctx, input) => {
    const { rows } = await sql<{ n: number }>`
      with recursive c(x) as (select 1 union all select x + 1 from c where x < ${input.count})
      select count(*) as n from c`.execute(ctx.db);
    if (input.hold) await gate;
    return Number(rows[0]!.n);
  },
  handler: async (ctx, _input, counted) => {
    const id = newId('con');
    await ctx.db
      .insertInto('contacts')
      .values({
        workspace_id: ctx.workspaceId,
        id,
        name: `counted ${counted}`,
        email: null,
        phone: null,
        company_id: null,
        company_name: null,
        notes: null,
        created_at: ctx.now,
        updated_at: ctx.now,
      })
      .execute();
    ctx.audit({ targetType: 'contact', targetId: id, action: 'create' });
    return { body: { contact_id: id, counted } };
  },
});

const registry = () =>
  buildRegistry([{ ...crmModule, operations: [...crmModule.operations, countThenWrite] }]);

const contactsNamed = (h: Harness, ws: TestWorkspace, name: string) =>
  h.db
    .selectFrom('contacts')
    .select('id')
    .where('workspace_id', '=', ws.id)
    .where('name', '=', name)
    .execute();

describe("a write's heavy read", () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;

  beforeAll(async () => {
    h = await Harness.start({ registry: registry(), env: { WOS_HEAVY_READ_TIMEOUT_MS: '4000' } });
    a = await h.workspace('Heavy write A');
    b = await h.workspace('Heavy write B');
  });
  afterAll(() => h.close());

  it('hands its result to the handler, whose write commits', async () => {
    const done = await h.request('POST', '/v1/test/count-then-write', {
      token: a.apiKey,
      body: { count: 1000 },
    });
    expect(done.status).toBe(200);
    expect(done.body.counted).toBe(1000);
    expect(await contactsNamed(h, a, 'counted 1000')).toHaveLength(1);
  });

  it('holds no write lock while it reads: a create of another workspace finishes meanwhile', async () => {
    closeGate();
    // If the read held the write lock the create below would wait for it; the fallback opens the gate so
    // that failure shows as an assertion, not a hung test.
    const fallback = setTimeout(openGate, 10_000);
    let heavyDone = false;
    const heavy = h
      .request('POST', '/v1/test/count-then-write', { token: a.apiKey, body: { count: 100_000, hold: true } })
      .then((result) => {
        heavyDone = true;
        return result;
      });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const created = await h.request('POST', '/v1/contacts', { token: b.apiKey, body: { name: 'Meanwhile' } });
    expect(created.status).toBe(201);
    expect(heavyDone).toBe(false);
    clearTimeout(fallback);
    openGate();
    const result = await heavy;
    expect(result.status).toBe(200);
    expect(result.body.counted).toBe(100_000);
  });

  it('stops at the heavy time limit with query_timeout, and writes nothing', async () => {
    const runaway = await h.request('POST', '/v1/test/count-then-write', {
      token: a.apiKey,
      body: { count: 1_000_000_000 },
    });
    expect(runaway.status).toBe(504);
    expect(runaway.body.error.code).toBe('query_timeout');
    expect(await contactsNamed(h, a, 'counted 1000000000')).toEqual([]);
  });
});
