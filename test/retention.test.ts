// Retention of the platform's append-only tables (src/core/retention-job.ts) with a moved clock: call events
// past WOS_CALL_EVENT_RETENTION_DAYS go into monthly aggregates and usage and billing answers stay the same;
// outbox events go 7 days after publication, never before; audit events stay unless
// WOS_AUDIT_RETENTION_DAYS is set; PostgreSQL drops month partitions; batches are bounded; runs repeat safely.

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Config } from '../src/config.ts';
import { monthBilledUnits, monthlyUsage } from '../src/core/call-event-months.ts';
import { type RetentionLimits, runRetention } from '../src/core/retention-job.ts';
import { ensureMonthPartitions } from '../src/db/month-partitions.ts';
import { callEventRow } from './helpers/call-event-row.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const DAY = 86_400_000;
// Generous: pg-boss picks the jobs up on its own polling, slower on a loaded machine.
const WAIT = { timeout: 30_000, interval: 50 };

let h: Harness;
beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

const retain = (config: Partial<Config> = {}, limits?: RetentionLimits) =>
  runRetention({ db: h.db, clock: h.clock, config: { ...h.config, ...config } }, undefined, limits);

const countWhere = async (
  table: 'call_events' | 'audit_events' | 'outbox_events',
  workspaceId: string,
  before = '9999',
) =>
  Number(
    (
      await h.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('occurred_at', '<', before)
        .executeTakeFirstOrThrow()
    ).n,
  );

const partitions = async (table: string) =>
  // This test's schema only: other test files (and other runs) have their own call_events.
  (
    await sql<{ name: string }>`select c.relname as name from pg_inherits i
      join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
      join pg_namespace n on n.oid = p.relnamespace
      where p.relname = ${table} and n.nspname = current_schema()`.execute(h.db)
  ).rows.map((r) => r.name);

const month = (offset = 0) => {
  const now = h.clock.now();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 7);
};

async function createContacts(ws: TestWorkspace, n: number) {
  for (let i = 0; i < n; i++) {
    const res = await h.request('POST', '/v1/contacts', { token: ws.apiKey, body: { name: `Contact ${i}` } });
    expect(res.status, res.text).toBe(201);
  }
}

/** A call event row as the pipeline writes one, at `occurredAt`. */
const callEvent = (workspaceId: string, occurredAt: string) =>
  callEventRow({ workspace_id: workspaceId, occurred_at: occurredAt });

describe('retention', () => {
  it('rolls call events past the window into monthly aggregates; usage and billing read the same', async () => {
    const ws = await h.workspace('Usage history');
    const first = month();
    await createContacts(ws, 3);
    expect((await h.request('GET', '/v1/contacts', { token: ws.apiKey })).status).toBe(200);
    expect((await h.request('POST', '/v1/contacts', { token: ws.apiKey, body: {} })).status).toBe(400);
    await h.flushUsage();
    h.clock.advance(60 * DAY);
    const second = month();
    await createContacts(ws, 2);
    await h.flushUsage();

    // 450 days on, the window's cutoff lies between the two months of calls.
    h.clock.advance(390 * DAY);
    const before = await monthlyUsage(h.db, ws.id, first, second);
    const billedBefore = await monthBilledUnits(h.db, ws.id, first);
    expect(before.reduce((sum, row) => sum + row.calls, 0)).toBe(7);
    expect(billedBefore).toBe(4);

    const report = await retain();
    expect(await countWhere('call_events', ws.id, `${second}-01`)).toBe(0);
    expect(await countWhere('call_events', ws.id)).toBe(2);
    const rolled = await h.db
      .selectFrom('call_event_months')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .execute();
    expect(rolled.map((row) => row.month)).toEqual(rolled.map(() => first));
    expect(rolled.reduce((sum, row) => sum + Number(row.calls), 0)).toBe(5);
    expect(rolled.reduce((sum, row) => sum + Number(row.failed_calls), 0)).toBe(1);
    expect(await monthlyUsage(h.db, ws.id, first, second)).toEqual(before);
    expect(await monthBilledUnits(h.db, ws.id, first)).toBe(billedBefore);

    if (usingPostgres) {
      const names = await partitions('call_events');
      expect(report.dropped).toContain(`call_events_${first.replace('-', '_')}`);
      expect(names).not.toContain(`call_events_${first.replace('-', '_')}`);
      expect(names).toContain(`call_events_${second.replace('-', '_')}`);
      for (const ahead of [month(), month(1), month(2)])
        expect(names).toContain(`call_events_${ahead.replace('-', '_')}`);
    }

    // A second run finds nothing more to move and leaves the counts as they are.
    const again = await retain();
    expect(again.callEvents).toBe(0);
    expect(again.dropped.filter((name) => name.startsWith('call_events'))).toEqual([]);
    expect(await monthlyUsage(h.db, ws.id, first, second)).toEqual(before);
  });

  it("a cap set after a short window moved part of the month counts the month's whole usage", async () => {
    const ws = await h.workspace('Short window');
    await createContacts(ws, 2);
    h.clock.advance(2 * DAY);
    await createContacts(ws, 1);
    await h.flushUsage();
    const period = month();
    const expected = await monthBilledUnits(h.db, ws.id, period);
    expect(expected).toBe(3);

    const report = await retain({ callEventRetentionDays: 1 });
    // SQLite moves the two older calls; PostgreSQL keeps the month's partition until the month is past.
    if (!usingPostgres) expect(report.callEvents).toBeGreaterThanOrEqual(2);
    expect(await monthBilledUnits(h.db, ws.id, period)).toBe(expected);

    const set = await h.admin('PATCH', `/workspaces/${ws.id}`, { billing: { monthly_cap_units: 4 } });
    expect(set.status, set.text).toBe(200);
    const counter = await h.db
      .selectFrom('billing_usage')
      .select('billed_units')
      .where('workspace_id', '=', ws.id)
      .where('period', '=', period)
      .executeTakeFirstOrThrow();
    expect(Number(counter.billed_units)).toBe(expected);
    await createContacts(ws, 1);
    const paused = await h.request('POST', '/v1/contacts', { token: ws.apiKey, body: { name: 'Over' } });
    expect(paused.status, paused.text).toBe(402);
  });

  it('deletes outbox events 7 days after their publication, never unpublished ones', async () => {
    const ws = await h.workspace('Outbox');
    const ids = async () =>
      (
        await h.db
          .selectFrom('outbox_events')
          .select(['name', 'target_id', 'published_at'])
          .where('workspace_id', '=', ws.id)
          .orderBy('id')
          .execute()
      ).map((row) => row.published_at !== null);
    await createContacts(ws, 1);
    await h.relay();
    await createContacts(ws, 1); // never relayed until later
    expect(await ids()).toEqual([true, false]);

    h.clock.advance(8 * DAY);
    await retain();
    expect(await ids()).toEqual([false]);

    await h.relay(); // published now, 8 days after it was written
    h.clock.advance(6 * DAY);
    await retain();
    expect(await ids()).toEqual([true]);
    h.clock.advance(2 * DAY);
    await retain();
    expect(await ids()).toEqual([]);
  });

  it('keeps audit events by default and deletes them past WOS_AUDIT_RETENTION_DAYS', async () => {
    const ws = await h.workspace('Audit');
    await createContacts(ws, 2);
    const old = await countWhere('audit_events', ws.id);
    expect(old).toBeGreaterThanOrEqual(2);
    h.clock.advance(100 * DAY);
    await createContacts(ws, 1);

    const kept = await retain();
    expect(await countWhere('audit_events', ws.id)).toBe(old + 1);

    const report = await retain({ auditRetentionDays: 30 });
    expect(await countWhere('audit_events', ws.id)).toBe(1);
    if (usingPostgres) {
      // This month's partition did not exist when the row was written (the default partition took it):
      // the job made it and moved the row in.
      const current = `audit_events_${month().replace('-', '_')}`;
      expect(kept.created).toContain(current);
      const moved = await sql<{ n: string }>`select count(*) as n from ${sql.id(current)}
        where workspace_id = ${ws.id}`.execute(h.db);
      expect(Number(moved.rows[0]!.n)).toBe(1);
      expect(report.dropped.some((name) => name.startsWith('audit_events_'))).toBe(true);
    } else {
      expect(report.auditEvents).toBeGreaterThanOrEqual(old);
    }
    const history = await h.request('GET', '/v1/history?target_type=contact&target_id=con_x', {
      token: ws.apiKey,
    });
    expect(history.status).toBe(200);
  });

  it('works in bounded batches and counts every row once however often it runs', async () => {
    await retain({ auditRetentionDays: 30 }); // nothing older is left anywhere
    const ws = await h.workspace('Backdated');
    const rows = Array.from({ length: 7 }, (_, i) => callEvent(ws.id, `2020-01-0${i + 1}T10:00:00.000Z`));
    await h.db.insertInto('call_events').values(rows).execute();
    const limits = { batch: 3, maxBatches: 1 };
    const moved = [];
    for (let i = 0; i < 4; i++) moved.push((await retain({}, limits)).callEvents);
    expect(moved).toEqual([3, 3, 1, 0]);
    const [row] = await monthlyUsage(h.db, ws.id, '2020-01', '2020-01');
    expect(row).toMatchObject({ calls: 7, units: 7, billed_units: 7, duration_ms: 21 });
    expect(await countWhere('call_events', ws.id)).toBe(0);
  });
});

describe.runIf(usingPostgres)('month partitions', () => {
  it("are made while a write into the default partition is in flight, and take that write's row", async () => {
    const ws = await h.workspace('Partition race');
    // A month with no partition yet: the default one takes the row.
    const row = callEvent(ws.id, '2031-05-10T10:00:00.000Z');
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const inserted = new Promise<void>((resolve) => {
      written = resolve;
    });
    const writer = h.db.transaction().execute(async (trx) => {
      await trx.insertInto('call_events').values(row).execute();
      written();
      await held;
    });
    await inserted;
    const month = new Date('2031-05-01T00:00:00.000Z');
    const creating = ensureMonthPartitions(h.db, 'call_events', month, month);
    // The partition's creation waits on the table the uncommitted row is in; then the row commits.
    await vi.waitFor(
      async () => {
        const waiting = await sql`select 1 from pg_locks where not granted
          and relation in (to_regclass('call_events'), to_regclass('call_events_default'))`.execute(h.db);
        expect(waiting.rows.length).toBe(1);
      },
      { timeout: 10_000, interval: 20 },
    );
    release();
    await writer;
    expect(await creating).toEqual(['call_events_2031_05']);
    const moved = await sql<{ n: string }>`select count(*) as n from call_events_2031_05
      where workspace_id = ${ws.id}`.execute(h.db);
    expect(Number(moved.rows[0]!.n)).toBe(1);
  });
});

describe('retention jobs on the schedule', () => {
  let w: Harness;
  beforeAll(async () => {
    w = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '20' } });
  });
  afterAll(() => w.close());

  it('runs retention hourly and PRAGMA optimize on SQLite', async () => {
    const ws = await w.workspace('Scheduled');
    const res = await w.request('POST', '/v1/contacts', { token: ws.apiKey, body: { name: 'Ada' } });
    expect(res.status).toBe(201);
    await w.flushUsage();
    w.clock.advance(450 * DAY);
    await w.worker!.tick();
    await vi.waitFor(async () => {
      const raw = await w.db
        .selectFrom('call_events')
        .select('id')
        .where('workspace_id', '=', ws.id)
        .where('method', '=', 'POST')
        .execute();
      expect(raw).toEqual([]);
      const rolled = await w.db
        .selectFrom('call_event_months')
        .select('calls')
        .where('workspace_id', '=', ws.id)
        .where('method', '=', 'POST')
        .execute();
      expect(rolled.map((row) => Number(row.calls))).toEqual([1]);
    }, WAIT);
    if (!usingPostgres) {
      await vi.waitFor(async () => {
        const stats = await sql<{ n: number }>`select count(*) as n from sqlite_stat1`.execute(w.db);
        expect(Number(stats.rows[0]!.n)).toBeGreaterThan(0);
      }, WAIT);
    }
  });
});
