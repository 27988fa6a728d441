// Scheduled BI artifacts through the real app: the rules checked at create, the scheduler's sweep starting
// one run per occurrence (trigger schedule, on the owner's behalf), catch-up once after a gap, two nodes
// racing for one occurrence, a revoked owner failing its run with the reason, and tenant isolation.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Service } from '../src/app.ts';
import type { JobEnv } from '../src/jobs/types.ts';
import { TARGET_TYPES } from '../src/modules/product-analytics/bi/schedule-schemas.ts';
import { SCHEDULE_TARGETS } from '../src/modules/product-analytics/bi/schedule-targets.ts';
import { scheduleSweep, startOccurrence } from '../src/modules/product-analytics/bi/scheduler.ts';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const clock = new MutableClock(new Date('2026-11-21T12:00:00.000Z'));
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let queryId: string;
let rowCount: number;

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });

/** A saved query of a workspace: run_bi_query saves what it runs. */
async function savedQuery(workspace: TestWorkspace) {
  const res = await call(
    'POST',
    '/v1/bi/queries/run',
    { dataset_key: 'crm_pipeline', limit: 25 },
    workspace.apiKey,
  );
  expect(res.status, res.text).toBe(200);
  return res.body as { query: { id: string }; result: { row_count: number } };
}

async function schedule(body: Record<string, unknown>, token = ws.apiKey) {
  const res = await call(
    'POST',
    '/v1/bi/scheduled-artifacts',
    { target: { type: 'query', id: queryId }, ...body },
    token,
  );
  expect(res.status, res.text).toBe(201);
  return res.body.scheduled_artifact as Record<string, any>;
}

/** The scheduled runs of one schedule in the runs table, oldest first. */
async function runsOf(scheduleId: string) {
  const rows = await h.db
    .selectFrom('runs')
    .selectAll()
    .where('workspace_id', '=', ws.id)
    .where('trigger', '=', 'schedule')
    .orderBy('id')
    .execute();
  return rows.filter((row) => JSON.parse(row.input_summary).scheduled_artifact_id === scheduleId);
}

/** Ticks the worker until every scheduled run of the schedule has finished; returns the schedule. */
async function settled(scheduleId: string, runs: number) {
  return vi.waitFor(
    async () => {
      await h.worker!.tick();
      const rows = await runsOf(scheduleId);
      if (rows.length !== runs || rows.some((r) => r.status === 'queued' || r.status === 'running'))
        throw new Error(`runs: ${JSON.stringify(rows.map((r) => [r.status, r.input_summary, r.queued_at]))}`);
      const res = await call('GET', `/v1/bi/scheduled-artifacts/${scheduleId}`);
      return res.body.scheduled_artifact as Record<string, any>;
    },
    { timeout: 20_000, interval: 50 },
  );
}

/** The worker env of a node, to run the sweep as that node's worker does. */
const envOf = (service: Service): JobEnv => ({
  db: service.deps.database.db,
  dialect: service.deps.database.dialect,
  config: service.deps.config,
  clock: service.deps.clock,
  logger: service.deps.logger,
  queue: service.deps.jobs,
  pipeline: service.deps,
});

beforeAll(async () => {
  h = await Harness.start({ clock, env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' } });
  ws = await h.workspace('Scheduling');
  other = await h.workspace('Other');
  for (const [name, value] of [
    ['Alpha', 120_000],
    ['Beta', 80_000],
  ] as const) {
    const deal = await call('POST', '/v1/deals', { name, amount_cents: value, currency: 'EUR' });
    expect(deal.status, deal.text).toBe(201);
  }
  const saved = await savedQuery(ws);
  queryId = saved.query.id;
  rowCount = saved.result.row_count;
});
afterAll(() => h.close());

describe(`scheduled artifacts (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('creates a schedule with its next occurrence, readable by lookup, list, MCP and get_record', async () => {
    const created = await schedule({
      name: 'Pipeline at 9 Berlin',
      cadence: 'Daily',
      hour: 9,
      minute: 30,
      timezone: 'europe/berlin',
    });
    expect(created).toMatchObject({
      name: 'Pipeline at 9 Berlin',
      target: { type: 'query', id: queryId },
      cadence: 'daily',
      minute: 30,
      hour: 9,
      weekday: null,
      day_of_month: null,
      timezone: 'Europe/Berlin',
      status: 'active',
      // 21 Nov 2026 12:00Z is 13:00 in Berlin: the next 09:30 CET is tomorrow 08:30Z.
      next_run_at: '2026-11-22T08:30:00.000Z',
      last_run_at: null,
      last_run_id: null,
      last_status: null,
      last_error: null,
      archived_at: null,
    });
    expect(created.owner_credential_id).toMatch(/^key_/);
    expect((await call('GET', `/v1/bi/scheduled-artifacts/${created.id}`)).body.scheduled_artifact).toEqual(
      created,
    );
    const listed = await call('GET', `/v1/bi/scheduled-artifacts?target_id=${queryId}`);
    expect(listed.body.scheduled_artifacts.map((s: { id: string }) => s.id)).toContain(created.id);

    const monthly = await h.callTool(ws.mcpToken, 'create_bi_scheduled_artifact', {
      name: 'Month end',
      target: { type: 'query', id: queryId },
      cadence: 'monthly',
      day_of_month: 'last',
      hour: 23,
    });
    expect(monthly.result.isError, JSON.stringify(monthly.body)).toBeFalsy();
    expect(monthly.body.scheduled_artifact).toMatchObject({
      day_of_month: 'last',
      timezone: 'UTC',
      next_run_at: '2026-11-30T23:00:00.000Z',
    });
    expect(monthly.body.scheduled_artifact.owner_credential_id).toMatch(/^mcpt_/);
    const tools = await h.callTool(ws.mcpToken, 'list_bi_scheduled_artifacts', { status: 'active' });
    expect(tools.body.scheduled_artifacts.length).toBeGreaterThanOrEqual(2);
    const record = await h.callTool(ws.mcpToken, 'get_record', {
      type: 'bi_scheduled_artifact',
      id: created.id,
    });
    expect(record.body.record).toEqual(created);
  });

  it('refuses a rule that does not fit its cadence, naming each field, and writes nothing', async () => {
    const bad = async (body: Record<string, unknown>) => {
      const res = await call('POST', '/v1/bi/scheduled-artifacts', {
        name: 'Bad',
        target: { type: 'query', id: queryId },
        ...body,
      });
      expect(res.status, res.text).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      // The fields named (a union such as day_of_month may explain its value more than once).
      return [...new Set(res.body.error.field_errors.map((e: { field: string }) => e.field))];
    };
    const before = (await call('GET', '/v1/bi/scheduled-artifacts?limit=100')).body.scheduled_artifacts
      .length;
    expect(await bad({ cadence: 'daily' })).toEqual(['hour']);
    expect(await bad({ cadence: 'weekly', hour: 8 })).toEqual(['weekday']);
    expect(await bad({ cadence: 'hourly', hour: 8 })).toEqual(['hour']);
    expect(await bad({ cadence: 'daily', hour: 8, day_of_month: 3 })).toEqual(['day_of_month']);
    expect(await bad({ cadence: 'monthly', hour: 8, day_of_month: 32 })).toEqual(['day_of_month']);
    expect(await bad({ cadence: 'daily', hour: 8, timezone: 'Moon/Base' })).toEqual(['timezone']);
    expect(await bad({ cadence: 'yearly', hour: 8 })).toEqual(['cadence']);
    expect(await bad({ cadence: 'hourly', every: 2 })).toEqual(['every']);
    // A target type no BI part has registered yet cannot be scheduled (while one remains).
    const unschedulable = TARGET_TYPES.find((type) => !SCHEDULE_TARGETS[type]);
    if (unschedulable) {
      expect(await bad({ cadence: 'hourly', target: { type: unschedulable, id: 'x_1' } })).toEqual([
        'target.type',
      ]);
    }
    const missing = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Missing',
      target: { type: 'query', id: 'biq_missing' },
      cadence: 'hourly',
    });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_not_found');
    expect((await call('GET', '/v1/bi/scheduled-artifacts?limit=100')).body.scheduled_artifacts).toHaveLength(
      before,
    );
  });

  it('starts one run per occurrence on the owner’s behalf, and advances next_run_at', async () => {
    const start = clock.now().getTime();
    const hourly = await schedule({ name: 'Hourly at :05', cadence: 'hourly', minute: 5 });
    expect(hourly.next_run_at).toBe(new Date(Math.floor(start / HOUR) * HOUR + 5 * MINUTE).toISOString());

    await h.worker!.tick();
    expect(await runsOf(hourly.id)).toHaveLength(0); // not due yet

    clock.current = new Date(hourly.next_run_at);
    const after = await settled(hourly.id, 1);
    const [run] = await runsOf(hourly.id);
    expect(run).toMatchObject({
      status: 'completed',
      trigger: 'schedule',
      run_type: 'bi_scheduled_refresh',
      module: 'product_analytics_bi',
      credential_id: hourly.owner_credential_id,
      attempts: 1,
      result_ref: queryId,
    });
    expect(JSON.parse(run!.input_summary)).toEqual({
      scheduled_artifact_id: hourly.id,
      occurrence: hourly.next_run_at,
      target: { type: 'query', id: queryId },
    });
    expect(after).toMatchObject({
      next_run_at: new Date(Date.parse(hourly.next_run_at) + HOUR).toISOString(),
      last_run_at: hourly.next_run_at,
      last_run_id: run!.id,
      last_status: 'completed',
      last_error: null,
    });
    // The BI run: related objects and the query's row count; the saved query points at it.
    const biRun = (await call('GET', `/v1/bi/runs/${run!.id}`)).body.run;
    expect(biRun).toMatchObject({
      status: 'completed',
      trigger: 'schedule',
      related: [
        { type: 'scheduled_artifact', id: hourly.id },
        { type: 'query', id: queryId },
      ],
      row_count: rowCount,
    });
    const listed = await call('GET', '/v1/bi/runs?trigger=schedule');
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toContain(run!.id);
    expect((await call('GET', `/v1/bi/runs/${run!.id}`, undefined, other.apiKey)).status).toBe(404);
    const query = await h.db
      .selectFrom('bi_queries')
      .select(['last_run_id'])
      .where('workspace_id', '=', ws.id)
      .where('id', '=', queryId)
      .executeTakeFirstOrThrow();
    expect(query.last_run_id).toBe(run!.id);

    // More ticks within the same hour start nothing more.
    clock.advance(20 * MINUTE);
    await h.worker!.tick();
    await h.worker!.tick();
    expect(await runsOf(hourly.id)).toHaveLength(1);

    // The next hour's occurrence is a second run.
    clock.current = new Date(after.next_run_at);
    await settled(hourly.id, 2);
  });

  it('runs a missed occurrence once after downtime, then the next one after now', async () => {
    const daily = await schedule({ name: 'Daily at 06:00', cadence: 'daily', hour: 6 });
    const due = Date.parse(daily.next_run_at);
    // Down for three days and a bit: three occurrences were missed.
    clock.current = new Date(due + 3 * 24 * HOUR + 2 * HOUR);
    const after = await settled(daily.id, 1);
    const [run] = await runsOf(daily.id);
    expect(JSON.parse(run!.input_summary).occurrence).toBe(daily.next_run_at);
    expect(after.next_run_at).toBe(new Date(due + 4 * 24 * HOUR).toISOString());
    await h.worker!.tick();
    expect(await runsOf(daily.id)).toHaveLength(1);
  });

  it('lets two nodes racing for the same occurrence start it once', async () => {
    // PostgreSQL: a second node over the same database. SQLite runs one node per file (its queue
    // requeues active jobs at start), so there the race is two sweeps of the one node.
    const sibling = usingPostgres ? await h.startSibling({ worker: false }) : h.service;
    try {
      const racing = await schedule({ name: 'Raced', cadence: 'hourly', minute: 45 });
      // Both nodes read the row while it is due, then race to take its occurrence (the worker's own
      // timer may join in): the guarded update lets one transaction win.
      const row = await h.db
        .selectFrom('bi_scheduled_artifacts')
        .selectAll()
        .where('workspace_id', '=', ws.id)
        .where('id', '=', racing.id)
        .executeTakeFirstOrThrow();
      clock.current = new Date(racing.next_run_at);
      const started = await Promise.all([
        startOccurrence(envOf(h.service), row, clock.now()),
        startOccurrence(envOf(sibling), row, clock.now()),
        scheduleSweep.run(envOf(sibling)),
      ]);
      expect(started.filter(Boolean).length).toBeLessThanOrEqual(1);
      const after = await settled(racing.id, 1);
      expect(after.next_run_at).toBe(new Date(Date.parse(racing.next_run_at) + HOUR).toISOString());
      // A node that read the row before and comes late finds the occurrence taken.
      expect(await startOccurrence(envOf(sibling), row, clock.now())).toBeUndefined();
      expect(await runsOf(racing.id)).toHaveLength(1);
    } finally {
      if (sibling !== h.service) await sibling.app.close();
    }
  });

  it('fails the run of a schedule whose owner credential was revoked, saying so', async () => {
    const owner = await h.createCredential(ws.id, 'api_key', ['bi:read', 'bi:write']);
    const owned = await schedule({ name: 'Owned', cadence: 'hourly', minute: 50 }, owner.token);
    expect(owned.owner_credential_id).toBe(owner.credential.id);
    expect((await h.admin('DELETE', `/credentials/${owner.credential.id}`)).status).toBeLessThan(300);

    clock.current = new Date(owned.next_run_at);
    const after = await settled(owned.id, 1);
    const [run] = await runsOf(owned.id);
    expect(run).toMatchObject({ status: 'failed', error_code: 'workspace_not_found', attempts: 1 });
    expect(run!.error_message).toContain(`owner credential ${owner.credential.id} was revoked`);
    expect(after.last_status).toBe('failed');
    expect(after.last_error).toEqual({ code: 'workspace_not_found', message: run!.error_message });
    // The schedule stays and moves on: each later occurrence fails the same way until it is replaced.
    expect(after.next_run_at).toBe(new Date(Date.parse(owned.next_run_at) + HOUR).toISOString());
  });

  it('fails the run when its target was archived since, as the owner’s own read would', async () => {
    const query = await savedQuery(ws);
    const res = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Target archived later',
      target: { type: 'query', id: query.query.id },
      cadence: 'hourly',
      minute: 20,
    });
    expect(res.status, res.text).toBe(201);
    const scheduled = res.body.scheduled_artifact;
    // What archive_bi_object does to a saved query.
    await h.db
      .updateTable('bi_queries')
      .set({ archived_at: clock.now().toISOString() })
      .where('workspace_id', '=', ws.id)
      .where('id', '=', query.query.id)
      .execute();
    clock.current = new Date(scheduled.next_run_at);
    const after = await settled(scheduled.id, 1);
    expect(after.last_status).toBe('failed');
    expect(after.last_error.code).toBe('resource_not_found');
  });

  it('leaves the schedules of a deleted workspace alone', async () => {
    const gone = await h.workspace('Deleted later');
    const query = await savedQuery(gone);
    const created = await call(
      'POST',
      '/v1/bi/scheduled-artifacts',
      { name: 'Orphan', target: { type: 'query', id: query.query.id }, cadence: 'hourly' },
      gone.apiKey,
    );
    expect(created.status, created.text).toBe(201);
    expect((await h.admin('DELETE', `/workspaces/${gone.id}`)).status).toBeLessThan(300);
    clock.current = new Date(created.body.scheduled_artifact.next_run_at);
    await h.worker!.tick();
    await h.worker!.tick();
    const runs = await h.db
      .selectFrom('runs')
      .select('id')
      .where('workspace_id', '=', gone.id)
      .where('trigger', '=', 'schedule')
      .execute();
    expect(runs).toEqual([]);
  });

  it('never runs a paused schedule', async () => {
    const paused = await schedule({ name: 'Paused', cadence: 'hourly', minute: 0, status: 'paused' });
    expect(paused.next_run_at).toBeNull();
    clock.advance(3 * HOUR);
    await h.worker!.tick();
    expect(await runsOf(paused.id)).toHaveLength(0);
  });

  it("keeps each workspace's schedules and targets to itself", async () => {
    const mine = await schedule({ name: 'Mine', cadence: 'hourly' });
    const theirs = await savedQuery(other);
    // Another workspace's saved query cannot be a target; its own schedules are invisible here.
    const foreign = await call('POST', '/v1/bi/scheduled-artifacts', {
      name: 'Foreign',
      target: { type: 'query', id: theirs.query.id },
      cadence: 'hourly',
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('resource_not_found');
    expect((await call('GET', `/v1/bi/scheduled-artifacts/${mine.id}`, undefined, other.apiKey)).status).toBe(
      404,
    );
    const listed = await call('GET', '/v1/bi/scheduled-artifacts?limit=100', undefined, other.apiKey);
    expect(listed.body.scheduled_artifacts).toEqual([]);
    const record = await h.callTool(other.mcpToken, 'get_record', {
      type: 'bi_scheduled_artifact',
      id: mine.id,
    });
    expect(record.body.error.code).toBe('resource_not_found');
  });
  // Last: it moves the clock into 2027. The schedules are created now and their next run set to the DST
  // night (as if created the day before), so no request writes at a far-future time; the sweep and the
  // job then run there, and the sweep computes the next occurrence across the change.
  it('runs a local time skipped by spring forward at 03:00, and a repeated one once (Europe/Berlin)', async () => {
    const berlin = { cadence: 'daily', hour: 2, minute: 30, timezone: 'Europe/Berlin' };
    const spring = await schedule({ name: 'Berlin 02:30', ...berlin });
    const autumn = await schedule({ name: 'Berlin 02:30 in autumn', ...berlin });
    const setNext = (id: string, at: string) =>
      h.db
        .updateTable('bi_scheduled_artifacts')
        .set({ next_run_at: at })
        .where('workspace_id', '=', ws.id)
        .where('id', '=', id)
        .execute();
    // 28 March 2027: 02:00 CET jumps to 03:00 CEST (01:00Z), the next valid minute for 02:30.
    await setNext(spring.id, '2027-03-28T01:00:00.000Z');
    // 31 October 2027: 02:30 happens at 00:30Z (CEST) and again at 01:30Z (CET): it runs once.
    await setNext(autumn.id, '2027-10-31T00:30:00.000Z');
    clock.current = new Date('2027-03-28T01:00:00.000Z');
    expect((await settled(spring.id, 1)).next_run_at).toBe('2027-03-29T00:30:00.000Z'); // 02:30 CEST

    clock.current = new Date('2027-10-31T00:30:00.000Z');
    expect((await settled(autumn.id, 1)).next_run_at).toBe('2027-11-01T01:30:00.000Z'); // 02:30 CET, next day
    clock.current = new Date('2027-10-31T01:30:00.000Z'); // the second 02:30: nothing is due
    await h.worker!.tick();
    expect(await runsOf(autumn.id)).toHaveLength(1);
  });
});
