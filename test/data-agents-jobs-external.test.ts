// Execution jobs on an external plane through the real server (issue 13 item 3): a worker claims, logs and
// completes a job, one of several concurrent claims wins, a lapsed claim is re-queued then failed, review and
// cancel, illegal moves 409 naming the current status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsFixture, jobCalls, startJobsFixture } from './helpers/data-agents-jobs.ts';
import { type Harness, type MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let f: JobsFixture;
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let clock: MutableClock;
const { call, tool, createJob, dispatch, details, report, jobWhen } = jobCalls(() => f);

beforeAll(async () => {
  f = await startJobsFixture();
  ({ h, ws, other, clock } = f);
});
afterAll(() => h.close());

describe(`execution jobs on external planes (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('lets an external worker claim, log, and complete a job; other workers and bad moves get 409', async () => {
    const secret = await call('POST', '/v1/data-agents/execution-planes', {
      name: 'Warehouse',
      capabilities: ['bi_query'],
      config: { region: 'eu', api_token: 'x' },
    });
    expect(secret.status).toBe(400);
    expect(secret.body.error.field_errors[0].field).toBe('config.api_token');
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', {
        name: 'Warehouse',
        capabilities: ['bi_query', 'custom'],
        config: { region: 'eu' },
        lease_seconds: 60,
      })
    ).body.execution_plane;
    expect(plane).toMatchObject({ kind: 'external', status: 'active', builtin: false, lease_seconds: 60 });
    const notAccepted = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'knowledge_build',
      plane_id: plane.id,
      input: { title: 't', kind: 'faq', content: 'x' },
    });
    expect(notAccepted.body.error.field_errors[0].field).toBe('job_type');

    const job = await createJob({
      job_type: 'bi_query',
      plane_id: plane.id,
      input: { query: { dataset_key: 'crm_pipeline', dimensions: ['stage_key'] } },
    });
    // A draft cannot be claimed; it is dispatched first.
    const early = await report(job.id, { status: 'running', worker_id: 'w1' });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain('is draft');
    // An inactive plane takes no dispatch; active again, it does.
    const off = await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, { status: 'inactive' });
    expect(off.body.execution_plane).toMatchObject({ status: 'inactive', lease_seconds: 60 });
    const refused = await tool('dispatch_data_agent_execution_job', { job_id: job.id });
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toContain('inactive');
    await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, { status: 'active' });
    const queued = await dispatch(job.id);
    expect(queued).toMatchObject({ status: 'queued', run_id: null });
    expect(
      (
        await call('GET', `/v1/data-agents/execution-jobs?status=queued&plane_id=${plane.id}`)
      ).body.execution_jobs.map((j: any) => j.id),
    ).toEqual([job.id]);

    const claimed = await report(job.id, {
      status: 'running',
      worker_id: 'w1',
      logs: [{ message: 'claimed' }],
    });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body.execution_job).toMatchObject({
      status: 'running',
      worker_id: 'w1',
      attempts: 1,
      log_count: 1,
      started_at: clock.now().toISOString(),
      lease_expires_at: new Date(clock.now().getTime() + 60_000).toISOString(),
    });
    const stolen = await report(job.id, { status: 'running', worker_id: 'w2' });
    expect(stolen.status).toBe(409);
    expect(stolen.body.error.message).toContain('another worker');

    clock.advance(30_000);
    const progress = await report(job.id, {
      worker_id: 'w1',
      progress: 50,
      logs: [
        { message: 'query sent', level: 'debug', logged_at: '2026-11-21T12:00:10.000Z' },
        { message: 'rows fetched' },
      ],
    });
    expect(progress.body.execution_job).toMatchObject({ progress: 50, log_count: 3 });
    expect(progress.body.execution_job.lease_expires_at).toBe(
      new Date(clock.now().getTime() + 60_000).toISOString(),
    );
    const tooMany = await report(job.id, {
      worker_id: 'w1',
      logs: Array.from({ length: 101 }, () => ({ message: 'x' })),
    });
    expect(tooMany.status).toBe(400);

    const contact = (await call('POST', '/v1/contacts', { name: 'Grace Hopper' })).body.contact;
    const foreign = (await call('POST', '/v1/contacts', { name: 'Not yours' }, other.apiKey)).body.contact;
    const crossing = await report(job.id, {
      worker_id: 'w1',
      status: 'completed',
      output: { summary: 'x', produced: [{ type: 'record:contact', id: foreign.id }] },
    });
    expect(crossing.status).toBe(404);
    clock.advance(1000);
    const completed = await report(job.id, {
      worker_id: 'w1',
      status: 'completed',
      logs: [{ message: 'done', level: 'info' }],
      output: {
        summary: 'Pipeline by stage: 3 rows.',
        reads: [{ type: 'bi_dataset', id: 'crm_pipeline' }],
        produced: [{ type: 'record:contact', id: contact.id }],
        data: { rows: 3 },
      },
    });
    expect(completed.status, completed.text).toBe(200);
    expect(completed.body.execution_job).toMatchObject({
      status: 'completed',
      duration_ms: 31_000,
      finished_at: clock.now().toISOString(),
      lease_expires_at: null,
      log_count: 4,
      progress: 100,
    });
    const shown = await details(job.id);
    expect(shown.logs.map((l: any) => [l.seq, l.level, l.message])).toEqual([
      [1, 'info', 'claimed'],
      [2, 'debug', 'query sent'],
      [3, 'info', 'rows fetched'],
      [4, 'info', 'done'],
    ]);
    expect(shown.logs[1].logged_at).toBe('2026-11-21T12:00:10.000Z');
    expect(shown.produced).toEqual([
      { type: 'record:contact', id: contact.id, record: expect.objectContaining({ name: 'Grace Hopper' }) },
    ]);
    expect(shown.lineage_edges).toHaveLength(2);
    const after = await report(job.id, { worker_id: 'w1', progress: 10 });
    expect(after.status).toBe(409);
    expect(after.body.error.message).toContain('is completed');
    // Worker writes are audited with the worker's credential as actor.
    const audit = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', job.id)
      .where('action', '=', 'running')
      .executeTakeFirstOrThrow();
    expect(audit.actor_type).toBe('api_key');
    // update needs data_agents:execute besides data_agents:write.
    const writer = (await h.createCredential(ws.id, 'api_key', ['data_agents:read', 'data_agents:write']))
      .token;
    const forbidden = await report(job.id, { worker_id: 'w1', progress: 1 }, writer);
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.required_scope).toBe('data_agents:execute');
  });

  it('lets exactly one of several workers claiming at once win; the others get 409', async () => {
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', { name: 'Crowded', capabilities: ['custom'] })
    ).body.execution_plane;
    const job = await createJob({ job_type: 'custom', plane_id: plane.id });
    await dispatch(job.id);
    const claims = await Promise.all(
      ['w1', 'w2', 'w3', 'w4'].map((worker) => report(job.id, { status: 'running', worker_id: worker })),
    );
    expect(claims.map((c) => c.status).sort()).toEqual([200, 409, 409, 409]);
    const winner = claims.find((c) => c.status === 200)!.body.execution_job;
    expect(winner.attempts).toBe(1);
    expect((await details(job.id)).execution_job.worker_id).toBe(winner.worker_id);
  });

  it('re-queues a job whose claim lapsed while attempts remain, then fails it', async () => {
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', {
        name: 'Flaky',
        capabilities: ['custom'],
        lease_seconds: 30,
      })
    ).body.execution_plane;
    const job = await createJob({ job_type: 'custom', plane_id: plane.id, max_attempts: 2 });
    await dispatch(job.id);
    await report(job.id, { status: 'running', worker_id: 'w1' });
    clock.advance(29_000);
    await h.worker!.tick();
    expect((await details(job.id)).execution_job.status).toBe('running');
    clock.advance(2_000);
    const requeued = await jobWhen(job.id, (j) => j.status === 'queued');
    expect(requeued).toMatchObject({
      attempts: 1,
      worker_id: null,
      lease_expires_at: null,
      error: { code: 'lease_expired' },
    });
    // The lapsed worker's late report is refused; another worker takes the job.
    const late = await report(job.id, { worker_id: 'w1', progress: 90 });
    expect(late.status).toBe(409);
    const second = await report(job.id, { status: 'running', worker_id: 'w2' });
    expect(second.body.execution_job).toMatchObject({ attempts: 2, worker_id: 'w2', error: null });
    clock.advance(31_000);
    const failed = await jobWhen(job.id, (j) => j.status === 'failed');
    expect(failed.error.code).toBe('lease_expired');
    expect(failed.finished_at).toBe(clock.now().toISOString());
    const logs = (await details(job.id)).logs;
    expect(logs.filter((l: any) => l.level === 'warn')).toHaveLength(2);
  });

  it('reviews a job that finished in needs_review, and cancels queued jobs once', async () => {
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', { name: 'Reviewed', capabilities: ['custom'] })
    ).body.execution_plane;
    const job = await createJob({ job_type: 'custom', plane_id: plane.id, require_review: true });
    const early = await call('POST', `/v1/data-agents/execution-jobs/${job.id}/review`, {
      decision: 'approved',
    });
    expect(early.status).toBe(409);
    expect(early.body.error.message).toContain('is draft');
    await dispatch(job.id);
    await report(job.id, { status: 'running', worker_id: 'w1' });
    const finished = await report(job.id, {
      status: 'completed',
      worker_id: 'w1',
      output: { summary: 'ok' },
    });
    expect(finished.body.execution_job.status).toBe('needs_review');
    const approved = await call('POST', `/v1/data-agents/execution-jobs/${job.id}/review`, {
      decision: 'approved',
      note: 'Numbers match.',
    });
    expect(approved.status).toBe(200);
    expect(approved.body.execution_job).toMatchObject({ status: 'approved', review_note: 'Numbers match.' });
    const twice = await call('POST', `/v1/data-agents/execution-jobs/${job.id}/review`, {
      decision: 'rejected',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error.message).toContain('is approved');

    const queued = await createJob({ job_type: 'custom', plane_id: plane.id });
    await dispatch(queued.id);
    const canceled = await report(queued.id, { status: 'canceled' });
    expect(canceled.body.execution_job.status).toBe('canceled');
    const again = await report(queued.id, { status: 'canceled' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('is canceled');
    const edit = await report(queued.id, { title: 'renamed' });
    expect(edit.status).toBe(409);
    const draft = await createJob({ job_type: 'custom', plane_id: plane.id });
    const cancelDraft = await report(draft.id, { status: 'canceled' });
    expect(cancelDraft.status).toBe(409);
    const renamed = await report(draft.id, { title: 'renamed', input: { parameters: { a: 1 } } });
    expect(renamed.body.execution_job).toMatchObject({ title: 'renamed', input: { parameters: { a: 1 } } });
  });
});
