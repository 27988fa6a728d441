// Execution planes and jobs on the native plane through the real server (issue 13 items 1 and 3): the native
// plane is created on first use, jobs are validated per type and run by the run worker, refusals end a job,
// illegal moves are 409 naming the current status, dispatch is MCP-only, and no record of one workspace is
// reachable from another.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nativeRunners } from '../src/modules/data-agents/governed/job-runners.ts';
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

describe(`execution planes and native jobs (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
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
    // A type whose runner the native plane lacks (taken out of the map for this call: the server runs in
    // this process) is refused at dispatch, never queued to fail later.
    const runner = nativeRunners.dataset_snapshot;
    delete nativeRunners.dataset_snapshot;
    const refused = await tool('dispatch_data_agent_execution_job', { job_id: snapshot.id }).finally(() => {
      if (runner) nativeRunners.dataset_snapshot = runner;
    });
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
    // The worker may have taken the job already: the message names whichever status it is in now.
    expect(again.body.error.message).toMatch(/ is (queued|running|completed);/);

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
