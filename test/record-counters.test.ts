// Record counters (issue 15, item 2): get_workspace_summary reads per-workspace counters kept by triggers in
// each write's transaction. They must equal COUNT(*) after any mix of writes, concurrent ones included, stay
// per workspace, and be repairable by rebuildRecordCounters / `wos counters rebuild`.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { counterRecountSql } from '../src/core/record-counter-sql.ts';
import { rebuildRecordCounters } from '../src/core/record-counters.ts';
import { COUNTED_RECORDS } from '../src/db/migrations/0013-record-counters.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const run = promisify(execFile);
let h: Harness;
let a: TestWorkspace;
let b: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  a = await h.workspace('A');
  b = await h.workspace('B');
});
afterAll(() => h.close());

const ok = async (method: string, url: string, ws: TestWorkspace, body?: unknown) => {
  const res = await h.request(method, url, { token: ws.apiKey, body });
  expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
  return res.body;
};

type Counts = Record<string, { n: number; amount: number }>;

/** The stored counters of a workspace, summed over their slots (zero rows left out). */
async function stored(workspaceId: string): Promise<Counts> {
  const rows = await sql<{ counter: string; dimension: string; n: number; amount: number }>`
    select counter, dimension, sum(n) as n, sum(amount) as amount from record_counters
    where workspace_id = ${workspaceId} group by counter, dimension`.execute(h.db);
  const out: Counts = {};
  for (const r of rows.rows) {
    if (Number(r.n) === 0 && Number(r.amount) === 0) continue;
    out[`${r.counter}/${r.dimension}`] = { n: Number(r.n), amount: Number(r.amount) };
  }
  return out;
}

/** The same, counted with COUNT(*) over the record tables. */
async function counted(workspaceId: string): Promise<Counts> {
  const out: Counts = {};
  for (const c of COUNTED_RECORDS) {
    const rows = await sql<{
      counter: string;
      dimension: string;
      n: number;
      amount: number;
    }>`${counterRecountSql(c, workspaceId)}`.execute(h.db);
    for (const r of rows.rows)
      out[`${r.counter}/${r.dimension}`] = { n: Number(r.n), amount: Number(r.amount) };
  }
  return out;
}

async function expectExact(workspaceId: string) {
  expect(await stored(workspaceId)).toEqual(await counted(workspaceId));
}

const summary = async (ws: TestWorkspace) => (await ok('GET', '/v1/workspace', ws)).workspace.summary;

const count = async (query: string, workspaceId: string) =>
  Number(
    (await sql<{ n: number }>`${sql.raw(query)} and workspace_id = ${workspaceId}`.execute(h.db)).rows[0]!.n,
  );

describe('record counters', () => {
  it('give the summary COUNT(*) after a mix of writes', async () => {
    const contacts = [];
    for (const name of ['Ada', 'Grace', 'Linus'])
      contacts.push((await ok('POST', '/v1/contacts', a, { name })).contact);
    await ok('POST', '/v1/companies', a, { name: 'Acme' });
    const deals = [];
    for (const [amount, currency] of [
      [10_000, 'USD'],
      [2_500, 'USD'],
      [700, 'EUR'],
    ] as const) {
      deals.push((await ok('POST', '/v1/deals', a, { name: 'D', amount_cents: amount, currency })).deal);
    }
    await ok('PATCH', `/v1/deals/${deals[0].id}`, a, { stage: 'won' });
    await ok('PATCH', `/v1/deals/${deals[1].id}`, a, { amount_cents: 3_000 });
    const lead = (await ok('POST', '/v1/leads', a, { name: 'Lead', company_name: 'Leadco' })).lead;
    await ok('POST', `/v1/leads/${lead.id}/convert`, a, { conversion_reason: 'demo' });

    const tasks = [];
    for (let i = 0; i < 4; i++) tasks.push((await ok('POST', '/v1/tasks', a, { title: `T${i}` })).task);
    await ok('PATCH', `/v1/tasks/${tasks[0].id}`, a, { status: 'completed' });
    await ok('PATCH', `/v1/tasks/${tasks[1].id}`, a, { status: 'canceled' });
    await ok('PATCH', `/v1/tasks/${tasks[1].id}`, a, { status: 'open' });
    for (const type of ['note', 'call', 'call']) {
      await ok('POST', '/v1/activities', a, { type, summary: 'x', occurred_at: '2026-11-20T10:00:00Z' });
    }

    const active = (await ok('POST', '/v1/projects', a, { name: 'P1', key: 'PA' })).project;
    const other = (await ok('POST', '/v1/projects', a, { name: 'P2', key: 'PB' })).project;
    const pt = (await ok('POST', '/v1/projects/tasks', a, { project_id: active.id, title: 'a' }))
      .project_task;
    await ok('POST', '/v1/projects/tasks', a, { project_id: active.id, title: 'b', status: 'todo' });
    await ok('POST', '/v1/projects/tasks', a, { project_id: other.id, title: 'c' });
    await ok('PATCH', `/v1/projects/tasks/${pt.id}`, a, { status: 'done' });
    await ok('PATCH', `/v1/projects/${other.id}`, a, { status: 'on_hold' });

    const queue = (await ok('POST', '/v1/support/queues', a, { name: 'Q', key: 'q' })).queue;
    const tickets = [];
    for (const subject of ['one', 'two']) {
      tickets.push((await ok('POST', '/v1/support/tickets', a, { queue_id: queue.id, subject })).ticket);
    }
    await ok('PATCH', `/v1/support/tickets/${tickets[0].id}`, a, { status: 'solved' });
    await ok('POST', '/v1/calendar/calendars', a, { name: 'Team', timezone: 'UTC' });

    const s = await summary(a);
    const openDeals = await sql<{ currency: string; n: number; total: number }>`
      select currency, count(*) as n, sum(amount_cents) as total from deals
      where workspace_id = ${a.id} and closed_at is null group by currency`.execute(h.db);
    expect(s.crm).toEqual({
      contacts: await count('select count(*) as n from contacts where true', a.id),
      companies: await count('select count(*) as n from companies where true', a.id),
      open_deals: {
        count: openDeals.rows.reduce((t, r) => t + Number(r.n), 0),
        amount_cents_by_currency: Object.fromEntries(
          openDeals.rows.map((r) => [r.currency, Number(r.total)]),
        ),
      },
    });
    expect(s.crm.contacts).toBe(4); // three and the converted lead's
    expect(s.crm.open_deals.amount_cents_by_currency).toMatchObject({ USD: 3_000, EUR: 700 });
    expect(s.tasks.by_status).toEqual({
      open: await count(`select count(*) as n from tasks where status = 'open'`, a.id),
      completed: 1,
      canceled: 0,
    });
    expect(s.tasks.by_status.open).toBe(3);
    expect(s.activity).toEqual({
      total: 3,
      by_type: { note: 1, call: 2, email: 0, meeting: 0, agent_action: 0 },
    });
    expect(s.projects).toMatchObject({ active_projects: 1, open_tasks: 1 });
    expect(s.support).toMatchObject({ open_tickets: 1 });
    expect(s.calendar).toMatchObject({ calendars: 1 });
    await expectExact(a.id);

    // Reactivating the project brings its open task back.
    await ok('PATCH', `/v1/projects/${other.id}`, a, { status: 'active' });
    expect((await summary(a)).projects).toMatchObject({ active_projects: 2, open_tasks: 2 });
    await expectExact(a.id);
  });

  it('stay exact under concurrent creates, status changes and project archiving', async () => {
    const tasks = [];
    for (let i = 0; i < 10; i++) tasks.push((await ok('POST', '/v1/tasks', a, { title: `R${i}` })).task);
    const project = (await ok('POST', '/v1/projects', a, { name: 'Race', key: 'RACE' })).project;
    const statuses = ['completed', 'canceled', 'open'];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 30; i++) {
      calls.push(ok('POST', '/v1/tasks', a, { title: `new ${i}` }));
      calls.push(ok('POST', '/v1/contacts', a, { name: `C${i}` }));
      calls.push(
        ok('POST', '/v1/activities', a, { type: 'email', summary: 'x', occurred_at: '2026-11-20T10:00:00Z' }),
      );
      calls.push(ok('PATCH', `/v1/tasks/${tasks[i % 10]!.id}`, a, { status: statuses[i % 3] }));
      calls.push(ok('POST', '/v1/projects/tasks', a, { project_id: project.id, title: `pt ${i}` }));
      if (i % 5 === 0) {
        calls.push(
          ok('PATCH', `/v1/projects/${project.id}`, a, { status: i % 10 === 0 ? 'on_hold' : 'active' }),
        );
      }
      calls.push(ok('POST', '/v1/contacts', b, { name: `B${i}` }));
    }
    await Promise.all(calls);
    await expectExact(a.id);
    await expectExact(b.id);
    const s = await summary(a);
    expect(s.crm.contacts).toBe(await count('select count(*) as n from contacts where true', a.id));
  });

  it('are repaired by rebuildRecordCounters, one workspace or all', async () => {
    const before = await summary(a);
    const corrupt = async (workspaceId: string) => {
      await sql`update record_counters set n = n + 5 where workspace_id = ${workspaceId} and counter = 'tasks'`.execute(
        h.db,
      );
      await sql`delete from record_counters where workspace_id = ${workspaceId} and counter = 'contacts'`.execute(
        h.db,
      );
      await sql`insert into record_counters (workspace_id, counter, dimension, slot, n, amount)
        values (${workspaceId}, 'calendars', '', 99, 7, 0)`.execute(h.db);
    };
    await corrupt(a.id);
    await corrupt(b.id);
    const bBroken = await stored(b.id);
    expect(await summary(a)).not.toEqual(before);

    const result = await rebuildRecordCounters(h.db, a.id);
    expect(result.counters).toBeGreaterThan(5);
    expect(await summary(a)).toEqual(before);
    await expectExact(a.id);
    expect(await stored(b.id)).toEqual(bBroken); // another workspace's counters are left alone

    await rebuildRecordCounters(h.db);
    await expectExact(b.id);
    await expectExact(a.id);
  });

  it('are rebuilt by `wos counters rebuild [WORKSPACE_ID]`', async () => {
    const env = {
      ...process.env,
      WOS_DATA_DIR: h.config.dataDir,
      WOS_LOG_LEVEL: 'silent',
      ...(h.config.databaseUrl ? { WOS_DATABASE_URL: h.config.databaseUrl } : {}),
      ...(h.config.databaseSchema ? { WOS_DATABASE_SCHEMA: h.config.databaseSchema } : {}),
    };
    const cli = async (...args: string[]) =>
      JSON.parse((await run(process.execPath, ['bin/wos.js', ...args], { env })).stdout);
    await sql`update record_counters set n = n - 3 where workspace_id = ${a.id} and counter = 'activities'`.execute(
      h.db,
    );
    const one = await cli('counters', 'rebuild', a.id);
    expect(one).toMatchObject({ workspace_id: a.id, counters: expect.any(Number) });
    await expectExact(a.id);

    await sql`update record_counters set n = n + 1 where workspace_id = ${b.id}`.execute(h.db);
    expect(await cli('counters', 'rebuild')).toMatchObject({ workspace_id: null });
    await expectExact(b.id);

    await expect(
      run(process.execPath, ['bin/wos.js', 'counters', 'rebuild', 'ws_unknown'], { env }),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('wos: '),
    });
  }, 120_000); // two CLI processes start here: each takes seconds on a busy machine

  it("never move on another workspace's writes", async () => {
    const before = await stored(a.id);
    const summaryBefore = await summary(a);
    const task = (await ok('POST', '/v1/tasks', b, { title: 'B task' })).task;
    await ok('PATCH', `/v1/tasks/${task.id}`, b, { status: 'completed' });
    await ok('POST', '/v1/contacts', b, { name: 'B contact' });
    await ok('POST', '/v1/deals', b, { name: 'B deal', amount_cents: 100, currency: 'USD' });
    const project = (await ok('POST', '/v1/projects', b, { name: 'B', key: 'BP' })).project;
    await ok('POST', '/v1/projects/tasks', b, { project_id: project.id, title: 'x' });
    await ok('PATCH', `/v1/projects/${project.id}`, b, { status: 'archived' });
    expect(await stored(a.id)).toEqual(before);
    expect(await summary(a)).toEqual(summaryBefore);
    await expectExact(b.id);
  });
});
