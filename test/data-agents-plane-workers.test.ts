// An external execution plane is bound to the credentials allowed to work for it (worker_credential_ids):
// only they claim its jobs, only the claiming credential reports on (heartbeats, completes, fails) its
// claim, and an inactive plane's queued jobs cannot be claimed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsFixture, jobCalls, startJobsFixture } from './helpers/data-agents-jobs.ts';
import { type Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let f: JobsFixture;
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
const { call, createJob, dispatch, details, report } = jobCalls(() => f);
const WORKER_SCOPES = ['data_agents:read', 'data_agents:write', 'data_agents:execute'];

beforeAll(async () => {
  f = await startJobsFixture();
  ({ h, ws, other } = f);
});
afterAll(() => h.close());

const worker = () => h.createCredential(ws.id, 'api_key', WORKER_SCOPES);
const fieldsOf = (res: { body: any }) => res.body.error.field_errors.map((e: any) => e.field);

async function queuedJobOn(planeId: string) {
  const job = await createJob({ job_type: 'custom', plane_id: planeId });
  await dispatch(job.id);
  return job;
}

describe(`external plane workers (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('binds a plane to live credentials of its workspace, the caller by default', async () => {
    const [a, b] = [await worker(), await worker()];
    const created = await call('POST', '/v1/data-agents/execution-planes', {
      name: 'Bound',
      capabilities: ['custom'],
      worker_credential_ids: [a.credential.id, b.credential.id],
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.execution_plane.worker_credential_ids).toEqual([a.credential.id, b.credential.id]);

    const foreign = await h.createCredential(other.id, 'api_key', WORKER_SCOPES);
    const revoked = await worker();
    await h.admin('DELETE', `/credentials/${revoked.credential.id}`);
    const bad = await call('POST', '/v1/data-agents/execution-planes', {
      name: 'Bad',
      capabilities: ['custom'],
      worker_credential_ids: [a.credential.id, foreign.credential.id, 'key_nope', revoked.credential.id],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    expect(fieldsOf(bad)).toEqual([
      'worker_credential_ids[1]',
      'worker_credential_ids[2]',
      'worker_credential_ids[3]',
    ]);
    expect(bad.text).not.toContain(other.id);

    // Without a list the plane is bound to the credential that registers it.
    const own = await call('POST', '/v1/data-agents/execution-planes', {
      name: 'Mine',
      capabilities: ['custom'],
    });
    const caller = await h.db
      .selectFrom('audit_events')
      .select('actor_credential_id')
      .where('request_id', '=', own.body.request_id)
      .executeTakeFirstOrThrow();
    expect(own.body.execution_plane.worker_credential_ids).toEqual([caller.actor_credential_id]);

    // An update replaces the list, checked the same way; the native plane has no workers to bind.
    const plane = created.body.execution_plane;
    const replaced = await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, {
      worker_credential_ids: [b.credential.id],
    });
    expect(replaced.body.execution_plane.worker_credential_ids).toEqual([b.credential.id]);
    const crossing = await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, {
      worker_credential_ids: [foreign.credential.id],
    });
    expect(fieldsOf(crossing)).toEqual(['worker_credential_ids[0]']);
    const native = (await call('GET', '/v1/data-agents/execution-planes?kind=native')).body
      .execution_planes[0];
    expect(native.worker_credential_ids).toEqual([]);
    const nativeBound = await call('PATCH', `/v1/data-agents/execution-planes/${native.id}`, {
      worker_credential_ids: [b.credential.id],
    });
    expect(fieldsOf(nativeBound)).toEqual(['worker_credential_ids']);
  });

  it('refuses a claim from a credential the plane does not list; only the claimer reports on its claim', async () => {
    const [bound, colleague, outsider] = [await worker(), await worker(), await worker()];
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', {
        name: 'Strict',
        capabilities: ['custom'],
        worker_credential_ids: [bound.credential.id, colleague.credential.id],
      })
    ).body.execution_plane;
    const job = await queuedJobOn(plane.id);

    const stranger = await report(job.id, { status: 'running', worker_id: 'w1' }, outsider.token);
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.code).toBe('credential_not_allowed');
    expect((await details(job.id)).execution_job).toMatchObject({ status: 'queued', attempts: 0 });

    const claimed = await report(job.id, { status: 'running', worker_id: 'w1' }, bound.token);
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body.execution_job.worker_credential_id).toBe(bound.credential.id);

    // Another credential of the plane, even naming the same worker_id, cannot heartbeat, complete or fail it.
    for (const body of [
      { worker_id: 'w1' },
      { worker_id: 'w1', progress: 50 },
      { worker_id: 'w1', status: 'completed', output: { summary: 'stolen' } },
      { worker_id: 'w1', status: 'failed', error: { code: 'x', message: 'sabotage' } },
    ]) {
      const res = await report(job.id, body, colleague.token);
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(res.body.error.code).toBe('credential_not_allowed');
    }
    const outside = await report(job.id, { worker_id: 'w1', status: 'completed', output: { summary: 'x' } });
    expect(outside.status).toBe(403);
    expect((await details(job.id)).execution_job).toMatchObject({ status: 'running', progress: null });

    const beat = await report(job.id, { worker_id: 'w1' }, bound.token);
    expect(beat.status, beat.text).toBe(200);
    const done = await report(
      job.id,
      { worker_id: 'w1', status: 'completed', output: { summary: 'ok' } },
      bound.token,
    );
    expect(done.body.execution_job).toMatchObject({
      status: 'completed',
      worker_credential_id: bound.credential.id,
    });
  });

  it("refuses claims of an inactive plane's queued jobs", async () => {
    const bound = await worker();
    const plane = (
      await call('POST', '/v1/data-agents/execution-planes', {
        name: 'Sleepy',
        capabilities: ['custom'],
        worker_credential_ids: [bound.credential.id],
      })
    ).body.execution_plane;
    const job = await queuedJobOn(plane.id);
    await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, { status: 'inactive' });
    const refused = await report(job.id, { status: 'running', worker_id: 'w1' }, bound.token);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toContain('inactive');
    expect((await details(job.id)).execution_job.status).toBe('queued');
    await call('PATCH', `/v1/data-agents/execution-planes/${plane.id}`, { status: 'active' });
    const claimed = await report(job.id, { status: 'running', worker_id: 'w1' }, bound.token);
    expect(claimed.status, claimed.text).toBe(200);
  });
});
