// Execution planes and execution jobs through the real server (issue 13 items 1 and 3): the native plane is
// created on first use, jobs run on it through the run worker, an external worker claims, logs and
// completes a job, a lapsed claim is re-queued then failed, review, cancel, illegal moves are 409 naming the
// current status, and no record of one workspace is reachable from another.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
const clock = new MutableClock(new Date('2026-11-21T12:00:00.000Z'));

beforeAll(async () => {
  h = await Harness.start({ clock, env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' } });
  ws = await h.workspace('Jobs A');
  other = await h.workspace('Jobs B');
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const tool = (name: string, args: unknown, token = ws.mcpToken) => h.callTool(token, name, args);
const createJob = async (body: Record<string, unknown>, token = ws.apiKey) => {
  const res = await call('POST', '/v1/data-agents/execution-jobs', body, token);
  expect(res.status, res.text).toBe(201);
  return res.body.execution_job;
};
const dispatch = async (jobId: string, token = ws.mcpToken) => {
  const res = await tool('dispatch_data_agent_execution_job', { job_id: jobId }, token);
  expect(res.result.isError, JSON.stringify(res.body)).toBeFalsy();
  return res.body.execution_job;
};
const details = async (jobId: string, token = ws.apiKey) =>
  (await call('GET', `/v1/data-agents/execution-jobs/${jobId}`, undefined, token)).body;
const report = (jobId: string, body: Record<string, unknown>, token = ws.apiKey) =>
  call('PATCH', `/v1/data-agents/execution-jobs/${jobId}`, body, token);

/** Ticks the worker until the job matches (pg-boss fetches on its own; the SQLite poller is ticked too). */
const jobWhen = (id: string, check: (job: any) => boolean) =>
  vi.waitFor(
    async () => {
      await h.worker!.tick();
      const job = (await details(id)).execution_job;
      if (!check(job)) throw new Error(`job is ${JSON.stringify(job)}`);
      return job;
    },
    { timeout: 20_000, interval: 50 },
  );

describe(`execution planes and jobs (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('creates one active native plane on first use, even when first uses race', async () => {
    const fresh = await h.workspace('Fresh');
    const creates = await Promise.all(
      [1, 2, 3, 4].map((i) =>
        call(
          'POST',
          '/v1/data-agents/execution-jobs',
          { job_type: 'custom', title: `race ${i}` },
          fresh.apiKey,
        ),
      ),
    );
    expect(creates.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    const planes = (await call('GET', '/v1/data-agents/execution-planes', undefined, fresh.apiKey)).body
      .execution_planes;
    expect(planes).toHaveLength(1);
    expect(planes[0]).toMatchObject({ kind: 'native', status: 'active', builtin: true });
    expect(new Set(creates.map((r) => r.body.execution_job.plane_id))).toEqual(new Set([planes[0].id]));
    // A workspace that only looks sees its native plane too.
    const looked = await call('GET', '/v1/data-agents/execution-planes', undefined, other.apiKey);
    expect(looked.body.execution_planes).toHaveLength(1);
    // The native plane keeps its kind and job types.
    const fixed = await call(
      'PATCH',
      `/v1/data-agents/execution-planes/${planes[0].id}`,
      { status: 'inactive' },
      fresh.apiKey,
    );
    expect(fixed.status).toBe(400);
    expect(fixed.body.error.field_errors[0].field).toBe('status');
  });

  it('validates the input per job type and refuses types the native plane cannot run yet', async () => {
    const bad = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'dataset_snapshot',
      input: { dataset_key: 'Not A Key' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.field_errors[0].field).toBe('input.dataset_key');
    const unknownField = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'dataset_snapshot',
      input: { dataset_key: 'crm_pipeline', extra: 1 },
    });
    expect(unknownField.body.error.field_errors[0].field).toBe('input.extra');
    const unknownDataset = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'bi_query',
      input: { query: { dataset_key: 'no_such_dataset' } },
    });
    expect(unknownDataset.status).toBe(400);
    expect(unknownDataset.body.error.field_errors[0].field).toBe('input.query.dataset_key');
    const writeTool = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'custom',
      input: { steps: [{ tool: 'create_task', arguments: { title: 'x' } }] },
    });
    expect(writeTool.status).toBe(400);
    expect(writeTool.body.error.field_errors[0].field).toBe('input.steps[0].tool');
    const badArgs = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'custom',
      input: { steps: [{ tool: 'search_contacts', arguments: { limit: 'many' } }] },
    });
    expect(badArgs.status).toBe(400);
    expect(badArgs.body.error.field_errors[0].field).toBe('input.steps[0].arguments.limit');

    const snapshot = await createJob({
      job_type: 'dataset_snapshot',
      input: { dataset_key: 'crm_pipeline' },
    });
    const refused = await tool('dispatch_data_agent_execution_job', { job_id: snapshot.id });
    expect(refused.result.isError).toBe(true);
    expect(refused.body.error.code).toBe('validation_failed');
    expect(refused.body.error.field_errors[0]).toMatchObject({ field: 'job_type' });
    expect(refused.body.error.field_errors[0].message).toContain(
      'native plane does not run dataset_snapshot',
    );
    expect((await details(snapshot.id)).execution_job.status).toBe('draft');
    const stepless = await createJob({ job_type: 'custom' });
    const noSteps = await tool('dispatch_data_agent_execution_job', { job_id: stepless.id });
    expect(noSteps.body.error.field_errors[0].field).toBe('input.steps');
  });

  it('runs a custom job on the native plane and a knowledge_build from its output, with lineage', async () => {
    await call('POST', '/v1/contacts', { name: 'Ada Lovelace' });
    const job = await createJob({
      job_type: 'custom',
      title: 'Contacts census',
      input: { steps: [{ tool: 'search_contacts', arguments: { limit: 5 } }] },
    });
    expect(job).toMatchObject({ status: 'draft', trigger: 'manual', attempts: 0, run_id: null });
    const queued = await dispatch(job.id);
    expect(queued).toMatchObject({ status: 'queued', queued_at: clock.now().toISOString() });
    expect(queued.run_id).toMatch(/^run_/);
    // dispatch is MCP-only: a job is never queued over REST, and illegal moves name the current status.
    const again = await tool('dispatch_data_agent_execution_job', { job_id: job.id });
    expect(again.body.error.code).toBe('conflict');
    expect(again.body.error.message).toContain('is queued');

    const done = await jobWhen(job.id, (j) => j.status === 'completed');
    expect(done).toMatchObject({ attempts: 1, progress: 100, error: null });
    expect(done.output.summary).toBe('Ran 1 read step: search_contacts.');
    expect(done.output.data.steps[0].result.contacts[0].name).toBe('Ada Lovelace');
    const shown = await details(job.id);
    expect(shown.logs.map((l: any) => l.message)).toEqual([
      'Attempt 1 started on the native plane.',
      'Step 1: search_contacts',
      'Ran 1 read step: search_contacts.',
    ]);
    const run = await h.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', queued.run_id)
      .executeTakeFirstOrThrow();
    expect(run.status).toBe('completed');
    // The runner's moves are audited as the system on behalf of the dispatcher.
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('target_id', '=', job.id)
      .orderBy('id')
      .execute();
    expect(audits.map((a) => a.action)).toEqual(['create', 'dispatch', 'running', 'completed']);
    expect(audits[3]).toMatchObject({ actor_type: 'system', surface: 'worker', caused_by: queued.run_id });
    expect(audits[3]!.on_behalf_of).toBe(audits[1]!.actor_credential_id);
    const events = await h.db
      .selectFrom('outbox_events')
      .select(['name', 'payload'])
      .where('target_id', '=', job.id)
      .orderBy('id')
      .execute();
    expect(events.map((e) => e.name)).toEqual([
      'data_agent_execution_job.created',
      'data_agent_execution_job.status_changed',
      'data_agent_execution_job.status_changed',
      'data_agent_execution_job.status_changed',
    ]);
    expect(JSON.parse(events[3]!.payload)).toMatchObject({ status: 'completed', previous_status: 'running' });

    const build = await createJob({
      job_type: 'knowledge_build',
      input: { title: 'Contacts', kind: 'summary', content: 'What we know.', from_job_ids: [job.id] },
    });
    await dispatch(build.id);
    const built = await jobWhen(build.id, (j) => j.status === 'completed');
    const artifactId = built.output.produced[0].id;
    expect(built.output.produced).toEqual([{ type: 'knowledge_artifact', id: artifactId }]);
    const withProduced = await details(build.id);
    expect(withProduced.produced[0].record.content).toContain('## Contacts census');
    expect(withProduced.produced[0].record.content).toContain('What we know.');
    expect(
      withProduced.lineage_edges.map((e: any) => `${e.from.type} ${e.relation} ${e.to.type}`).sort(),
    ).toEqual(['execution_job produces knowledge_artifact', 'execution_job reads execution_job']);
    const from = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=knowledge_artifact&node_id=${artifactId}&direction=upstream&depth=2`,
    );
    expect(from.body.lineage_edges.map((e: any) => e.to.id).sort()).toEqual([artifactId, job.id].sort());
  });

  it('fails a native job whose step the dispatcher may not call, and replays creates by idempotency key', async () => {
    const job = await createJob({
      job_type: 'custom',
      input: { steps: [{ tool: 'search_contacts', arguments: {} }] },
      idempotency_key: 'census-1',
    });
    const replay = await call('POST', '/v1/data-agents/execution-jobs', {
      job_type: 'custom',
      input: { steps: [{ tool: 'search_contacts', arguments: {} }] },
      idempotency_key: 'census-1',
    });
    expect(replay.status).toBe(200);
    expect(replay.body.execution_job.id).toBe(job.id);
    // The steps run with the dispatcher's credential: without crm:read the step is refused and the job fails.
    const agent = (await h.createCredential(ws.id, 'mcp_token', ['data_agents:read', 'data_agents:execute']))
      .token;
    await dispatch(job.id, agent);
    const failed = await jobWhen(job.id, (j) => j.status === 'failed');
    expect(failed.error.code).toBe('missing_required_scope');
    expect(failed.output).toBeNull();
    expect((await details(job.id)).logs.at(-1)).toMatchObject({ level: 'error' });
    const run = await h.db
      .selectFrom('runs')
      .selectAll()
      .where('id', '=', failed.run_id)
      .executeTakeFirstOrThrow();
    expect(run.status).toBe('completed');
  });

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

  it('keeps every plane and job of a workspace out of reach of another', async () => {
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', { name: 'Mine', capabilities: ['custom'] })
    ).body.execution_plane;
    const job = await createJob({ job_type: 'custom', plane_id: plane.id });
    const b = other.apiKey;
    expect((await call('GET', `/v1/data-agents/execution-jobs/${job.id}`, undefined, b)).status).toBe(404);
    expect((await call('GET', `/v1/data-agents/execution-jobs/records/${job.id}`, undefined, b)).status).toBe(
      404,
    );
    expect((await report(job.id, { title: 'x' }, b)).status).toBe(404);
    expect(
      (await call('POST', `/v1/data-agents/execution-jobs/${job.id}/review`, { decision: 'approved' }, b))
        .status,
    ).toBe(404);
    expect(
      (await tool('dispatch_data_agent_execution_job', { job_id: job.id }, other.mcpToken)).body.error.code,
    ).toBe('resource_not_found');
    expect(
      (await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, { name: 'x' }, b)).status,
    ).toBe(404);
    expect((await call('GET', `/v1/data-agents/execution-planes/${plane.id}`, undefined, b)).status).toBe(
      404,
    );
    const foreignPlane = await call(
      'POST',
      '/v1/data-agents/execution-jobs',
      { job_type: 'custom', plane_id: plane.id },
      b,
    );
    expect(foreignPlane.status).toBe(404);
    const record = await tool('get_record', { type: 'data_agent_execution_job', id: job.id }, other.mcpToken);
    expect(record.body.error.code).toBe('resource_not_found');
    const listed = await call('GET', '/v1/data-agents/execution-jobs', undefined, b);
    expect(listed.body.execution_jobs.map((j: any) => j.id)).not.toContain(job.id);
    const planes = await call('GET', '/v1/data-agents/execution-planes', undefined, b);
    expect(planes.body.execution_planes.map((p: any) => p.id)).not.toContain(plane.id);
    // Own lookups work.
    expect(
      (await call('GET', `/v1/data-agents/execution-jobs/records/${job.id}`)).body.execution_job.id,
    ).toBe(job.id);
  });

  it('pages jobs by keyset with filters', async () => {
    const fresh = await h.workspace('Pages');
    for (let i = 0; i < 5; i++) await createJob({ job_type: 'custom', title: `p${i}` }, fresh.apiKey);
    const first = await call(
      'GET',
      '/v1/data-agents/execution-jobs?limit=2&job_type=custom',
      undefined,
      fresh.apiKey,
    );
    expect(first.body.execution_jobs.map((j: any) => j.title)).toEqual(['p4', 'p3']);
    const second = await call(
      'GET',
      `/v1/data-agents/execution-jobs?limit=2&job_type=custom&cursor=${first.body.next_cursor}`,
      undefined,
      fresh.apiKey,
    );
    expect(second.body.execution_jobs.map((j: any) => j.title)).toEqual(['p2', 'p1']);
  });

  it('serves dispatch on MCP only: _meta.rest is null and no REST route or OpenAPI entry exists', async () => {
    const listed = await h.mcp(
      ws.mcpToken,
      { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      { query: '?modules=data_agents' },
    );
    const dispatchTool = listed.body.result.tools.find(
      (t: any) => t.name === 'dispatch_data_agent_execution_job',
    );
    expect(dispatchTool._meta).toMatchObject({
      module: 'data_agents',
      scopes: ['data_agents:execute'],
      rest: null,
    });
    const openapi = (await h.request('GET', '/openapi.json')).body;
    const operationIds = Object.values<any>(openapi.paths).flatMap((methods) =>
      Object.values<any>(methods).map((op) => op.operationId),
    );
    expect(operationIds).toContain('review_data_agent_execution_job');
    expect(operationIds).not.toContain('dispatch_data_agent_execution_job');
    const job = await createJob({ job_type: 'custom' });
    const rest = await call('POST', `/v1/data-agents/execution-jobs/${job.id}/dispatch`, { job_id: job.id });
    expect(rest.status).toBe(404);
    expect((await details(job.id)).execution_job.status).toBe('draft');
  });
});
