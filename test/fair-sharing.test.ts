// No workspace can take the service from the others (issue 15, item 3): each workspace runs at most
// WOS_HEAVY_READS_PER_WORKSPACE heavy reads at once (more wait, then 429 with Retry-After) while another
// workspace's heavy read still runs; a heavy read over its time limit and, on PostgreSQL, any statement of
// the main pool over WOS_STATEMENT_TIMEOUT_MS answer 504 query_timeout from the catalogue, never a 500.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../src/core/catalogue.ts';
import { defineOperation } from '../src/core/define-operation.ts';
import { Strict } from '../src/core/schema.ts';
import { crmModule } from '../src/modules/crm/index.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

// The test holds its heavy read open until it releases it: no timing decides what runs at once.
let release: () => void = () => {};
let held = Promise.resolve();
const hold = () => {
  held = new Promise<void>((resolve) => {
    release = resolve;
  });
};

const base = {
  module: 'crm' as const,
  scopes: ['crm:read'] satisfies Scope[],
  kind: 'read' as const,
  summary: 'Test operation',
  description: 'Exists only in this test file.',
  responseKey: 'done',
  response: Type.Object({ done: Type.Boolean(), request_id: Type.String() }),
  input: Strict({}),
};

const testOperations = [
  defineOperation({
    ...base,
    name: 'held_heavy_read',
    heavy: true,
    rest: { method: 'GET', path: '/v1/test/held' },
    handler: async () => {
      await held;
      return { body: { done: true } };
    },
  }),
  // On the main pool (not heavy): only the statement timeout stops it.
  defineOperation({
    ...base,
    name: 'slow_statement',
    rest: { method: 'GET', path: '/v1/test/slow' },
    handler: async (ctx) => {
      await sql`select pg_sleep(2)`.execute(ctx.db);
      return { body: { done: true } };
    },
  }),
];

const registry = () =>
  buildRegistry([{ ...crmModule, operations: [...crmModule.operations, ...testOperations] }]);

/** A text query too short for the search index: a heavy scan of the workspace's contacts. */
const HEAVY_LIST = '/v1/contacts?query=zq';
const ROWS = 30_000;

describe('fair sharing between workspaces', () => {
  let h: Harness;
  let a: TestWorkspace;
  let b: TestWorkspace;

  beforeAll(async () => {
    h = await Harness.start({ registry: registry() });
    a = await h.workspace('Busy A');
    b = await h.workspace('Quiet B');
    // Rows written directly, as an import would, so a scan has work to do.
    const now = new Date().toISOString();
    for (let start = 0; start < ROWS; start += 500) {
      const rows = Array.from({ length: 500 }, (_, i) => ({
        workspace_id: a.id,
        id: `con_seed${String(start + i).padStart(8, '0')}`,
        name: `Seeded contact ${start + i}`,
        email: `seeded${start + i}@example.com`,
        phone: null,
        company_id: null,
        company_name: 'Seeded Ltd',
        notes: null,
        created_at: now,
        updated_at: now,
      }));
      await h.db.insertInto('contacts').values(rows).execute();
    }
  }, 120_000);
  afterAll(() => h.close());

  const get = (url: string, ws: TestWorkspace) => h.request('GET', url, { token: ws.apiKey });

  /** Waits until the workspace's held heavy read has taken its slot. */
  const slotTaken = async (ws: TestWorkspace) => {
    while (h.service.deps.database.heavySlots.running(ws.id) === 0) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  };

  it("refuses a workspace's heavy read over its limit with 429 and Retry-After, not another workspace's", async () => {
    h = await h.restart({ heavyReadsPerWorkspace: 1, heavyReadWaitMs: 50 });
    hold();
    const first = get('/v1/test/held', a);
    await slotTaken(a);
    const refused = await get(HEAVY_LIST, a);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(refused.body.error.retry_after_seconds).toBe(1);
    expect(refused.headers['retry-after']).toBe('1');
    // Another workspace's heavy read, and A's ordinary reads and writes, still run meanwhile.
    const other = await get(HEAVY_LIST, b);
    expect(other.status).toBe(200);
    expect((await get('/v1/contacts?limit=1', a)).status).toBe(200);
    expect(
      (await h.request('POST', '/v1/contacts', { token: a.apiKey, body: { name: 'Still writing' } })).status,
    ).toBe(201);
    release();
    expect((await first).status).toBe(200);
    // The slot is free again.
    expect((await get(HEAVY_LIST, a)).status).toBe(200);
  });

  it('lets a waiting heavy read take the slot the running one frees', async () => {
    h = await h.restart({ heavyReadsPerWorkspace: 1, heavyReadWaitMs: 60_000 });
    hold();
    const first = get('/v1/test/held', a);
    await slotTaken(a);
    const waiting = get(HEAVY_LIST, a);
    release();
    expect((await first).status).toBe(200);
    const served = await waiting;
    expect(served.status).toBe(200);
    expect(served.body.contacts).toEqual([]);
  });

  it('answers 504 query_timeout when a heavy read runs over its time limit', async () => {
    // A millisecond is far less than scanning the seeded rows takes (SQLite: the worker is killed).
    h = await h.restart({ heavyReadTimeoutMs: 1 });
    const scan = await get(HEAVY_LIST, a);
    expect(scan.status).toBe(504);
    expect(scan.body.error.code).toBe('query_timeout');
    expect(scan.body.error.message).toContain('1 ms');
  });

  it.runIf(usingPostgres)(
    'answers 504 query_timeout when a statement of the main pool runs over WOS_STATEMENT_TIMEOUT_MS',
    async () => {
      h = await h.restart({ statementTimeoutMs: 300, heavyReadTimeoutMs: 30_000 });
      const slow = await get('/v1/test/slow', a);
      expect(slow.status).toBe(504);
      expect(slow.body.error.code).toBe('query_timeout');
      expect(slow.body.error.message).toContain('300 ms');
      // The canceled statement left its connection usable: writes and reads go on.
      const created = await h.request('POST', '/v1/contacts', { token: a.apiKey, body: { name: 'After' } });
      expect(created.status).toBe(201);
      expect((await get(`/v1/contacts/${created.body.contact.id}`, a)).status).toBe(200);
    },
  );
});
