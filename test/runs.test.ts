// Long-running work as a resource, through an operation the tests register for themselves: the run and its
// job commit together or not at all, the job moves the run through its states, a timeout stops the work,
// a cancel stops it too, and a replayed idempotency key returns the same run.
import { execFileSync } from 'node:child_process';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { jobsSchema } from '../src/jobs/pgboss-queue.ts';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';
import { interrupted, openGate, runTestRegistry } from './helpers/run-test-module.ts';

let h: Harness;
let ws: TestWorkspace;
const clock = new MutableClock(new Date('2026-11-21T12:00:00.000Z'));

beforeAll(async () => {
  h = await Harness.start({
    clock,
    registry: runTestRegistry(),
    env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' },
  });
  ws = await h.workspace();
});
afterAll(async () => {
  await h.close();
});

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const start = async (body: Record<string, unknown>, path = '/v1/test-runs') => {
  const res = await call('POST', path, body);
  expect(res.status).toBe(202);
  return res.body.run as { id: string; status: string };
};

/** Ticks the worker until the run matches (pg-boss fetches on its own; the SQLite poller is ticked too). */
const runWhen = (id: string, check: (run: any) => boolean) =>
  vi.waitFor(
    async () => {
      await h.worker!.tick();
      const res = await call('GET', `/v1/test-runs/${id}`);
      if (!check(res.body.run)) throw new Error(`run is ${JSON.stringify(res.body.run)}`);
      return res.body.run;
    },
    { timeout: 15_000, interval: 30 },
  );

/** The PIDs of the heavy-read worker processes of this test process (SQLite). */
const readWorkers = () =>
  execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes('sqlite-read-worker'))
    .map((line) => line.trim().split(/\s+/)[0]);

/** Jobs of a queue in the job table of the backend in use. */
async function jobsOf(name: string): Promise<{ run_id: string }[]> {
  if (usingPostgres) {
    const table = sql.table(`${jobsSchema(h.config)}.job`);
    const { rows } = await sql<{
      run_id: string;
    }>`select data->>'run_id' as run_id from ${table} where name = ${name}`.execute(h.db);
    return rows;
  }
  const rows = await h.db.selectFrom('job_queue').select('payload').where('name', '=', name).execute();
  return rows.map((row) => JSON.parse(row.payload) as { run_id: string });
}

describe(`runs (${usingPostgres ? 'PostgreSQL, pg-boss' : 'SQLite, job_queue'})`, () => {
  it('writes the run and its job in one transaction: a failure after the enqueue leaves neither', async () => {
    const runsBefore = await h.db.selectFrom('runs').select('id').where('workspace_id', '=', ws.id).execute();
    const jobsBefore = await jobsOf('test.work');
    const failed = await call('POST', '/v1/test-runs', { mode: 'ok', gate: true, fail_after_enqueue: true });
    expect(failed.status).toBe(400);
    expect(failed.body.error.field_errors[0].field).toBe('fail_after_enqueue');
    expect(await h.db.selectFrom('runs').select('id').where('workspace_id', '=', ws.id).execute()).toEqual(
      runsBefore,
    );
    expect(await jobsOf('test.work')).toHaveLength(jobsBefore.length);

    const run = await start({ mode: 'ok' });
    expect(await h.db.selectFrom('runs').select('id').where('id', '=', run.id).execute()).toHaveLength(1);
    expect((await jobsOf('test.work')).map((job) => job.run_id)).toContain(run.id);
  });

  it('answers 202 with the queued run, then moves it queued -> running -> completed', async () => {
    const res = await call('POST', '/v1/test-runs', { mode: 'ok', gate: true });
    expect(res.status).toBe(202);
    expect(res.body.request_id).toBe(res.headers['x-request-id']);
    const queued = res.body.run;
    expect(queued).toMatchObject({
      run_type: 'test_work',
      module: 'data_agents',
      operation: 'start_test_run',
      status: 'queued',
      trigger: 'manual',
      input: { mode: 'ok', gate: true },
      attempts: 0,
      queued_at: clock.now().toISOString(),
      started_at: null,
      finished_at: null,
      duration_ms: null,
      error: null,
      result_ref: null,
      request_id: res.body.request_id,
    });
    const running = await runWhen(queued.id, (run) => run.status === 'running');
    expect(running).toMatchObject({ attempts: 1, started_at: clock.now().toISOString(), finished_at: null });

    clock.advance(1500);
    openGate(queued.id);
    const completed = await runWhen(queued.id, (run) => run.status === 'completed');
    expect(completed).toMatchObject({
      attempts: 1,
      started_at: running.started_at,
      finished_at: clock.now().toISOString(),
      duration_ms: 1500,
      error: null,
      result_ref: `test_result:${queued.id}`,
    });

    const listed = await call('GET', '/v1/test-runs?status=completed');
    expect(listed.status).toBe(200);
    expect(listed.body.runs.map((run: { id: string }) => run.id)).toContain(queued.id);
    expect(listed.body.runs.every((run: { status: string }) => run.status === 'completed')).toBe(true);
  });

  it('records the code and message of a failed run, without a stack', async () => {
    const run = await start({ mode: 'fail' });
    const failed = await runWhen(run.id, (r) => r.status === 'failed');
    expect(failed.error).toEqual({ code: 'resource_not_found', message: 'The test dataset does not exist.' });
    expect(failed.attempts).toBe(1); // not retryable: no second attempt
    expect(failed.finished_at).not.toBeNull();
  });

  it('fails a run that exceeds its timeout with code timeout, and stops its work', async () => {
    // SQLite: a ready heavy-read worker, so the run's read starts on it at once.
    if (!usingPostgres)
      await h.service.deps.database.heavy.selectFrom('runs').select('id').limit(1).execute();
    const workers = readWorkers();
    const run = await start({ mode: 'sleep' }, '/v1/test-runs/timed');
    const failed = await runWhen(run.id, (r) => r.status === 'failed');
    expect(failed.error).toEqual({
      code: 'timeout',
      message: 'The run exceeded its time limit of 1 s and was stopped.',
    });
    await vi.waitFor(() => expect(interrupted.has(run.id)).toBe(true), { timeout: 5000 });
    if (!usingPostgres) {
      // The statement ran in a heavy-read worker process, which was killed: it is not left running.
      expect(workers).toHaveLength(1);
      await vi.waitFor(() => expect(readWorkers()).not.toContain(workers[0]), { timeout: 5000 });
    } else {
      // statement_timeout ended the statement on the server: it is not left running.
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity
        where query like '%wos_test_sleep%' and state = 'active' and pid <> pg_backend_pid()`.execute(h.db);
      expect(rows[0]!.n).toBe(0);
    }
  });

  it('cancels a running run, whose work stops; a finished run cannot be canceled (409 conflict)', async () => {
    const run = await start({ mode: 'ok', gate: true });
    await runWhen(run.id, (r) => r.status === 'running');
    const canceled = await call('POST', `/v1/test-runs/${run.id}/cancel`, {});
    expect(canceled.status).toBe(200);
    expect(canceled.body.run).toMatchObject({
      id: run.id,
      status: 'canceled',
      finished_at: clock.now().toISOString(),
    });
    await vi.waitFor(() => expect(interrupted.has(run.id)).toBe(true), { timeout: 10_000 });
    openGate(run.id);
    const after = await call('GET', `/v1/test-runs/${run.id}`);
    expect(after.body.run).toMatchObject({ status: 'canceled', result_ref: null });

    const again = await call('POST', `/v1/test-runs/${run.id}/cancel`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const done = await start({ mode: 'ok' });
    await runWhen(done.id, (r) => r.status === 'completed');
    const late = await call('POST', `/v1/test-runs/${done.id}/cancel`, {});
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('completed'),
    });

    const audit = await h.db
      .selectFrom('audit_events')
      .select(['action', 'tool'])
      .where('workspace_id', '=', ws.id)
      .where('target_id', '=', run.id)
      .orderBy('id')
      .execute();
    expect(audit).toEqual([
      { action: 'start', tool: 'start_test_run' },
      { action: 'cancel', tool: 'cancel_test_work_run' },
    ]);
  });

  it('replays the same run for the same idempotency key (REST 200, MCP the same body)', async () => {
    const first = await call('POST', '/v1/test-runs', { mode: 'ok', idempotency_key: 'run-once' });
    expect(first.status).toBe(202);
    const replay = await call('POST', '/v1/test-runs', { mode: 'ok', idempotency_key: 'run-once' });
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.run.id).toBe(first.body.run.id);
    const mcp = await h.callTool(ws.mcpToken, 'start_test_run', { mode: 'ok', idempotency_key: 'run-once' });
    expect(mcp.result.isError).toBeUndefined();
    expect(mcp.body.run.id).toBe(first.body.run.id);
    const other = await call('POST', '/v1/test-runs', { mode: 'fail', idempotency_key: 'run-once' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    expect(
      await h.db.selectFrom('runs').select('id').where('request_id', '=', replay.body.request_id).execute(),
    ).toEqual([]);

    // OpenAPI documents both answers with the run schema.
    const doc = (await h.request('GET', '/openapi.json')).body;
    const responses = doc.paths['/v1/test-runs'].post.responses;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['202', '200']));
    expect(responses['202'].content['application/json'].schema).toEqual(
      responses['200'].content['application/json'].schema,
    );

    const fresh = await h.callTool(ws.mcpToken, 'start_test_run', { mode: 'ok' });
    expect(fresh.body).toMatchObject({
      run: { status: 'queued', operation: 'start_test_run' },
      request_id: expect.any(String),
    });
  });

  it("does not show or cancel another workspace's run", async () => {
    const run = await start({ mode: 'ok' });
    const other = await h.workspace('Other workspace');
    const read = await call('GET', `/v1/test-runs/${run.id}`, undefined, other.apiKey);
    expect(read.status).toBe(404);
    expect(read.body.error.code).toBe('resource_not_found');
    const cancel = await call('POST', `/v1/test-runs/${run.id}/cancel`, {}, other.apiKey);
    expect(cancel.status).toBe(404);
    const list = await call('GET', '/v1/test-runs', undefined, other.apiKey);
    expect(list.body.runs).toEqual([]);
  });
});
