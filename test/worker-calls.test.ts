// The pipeline entered on a caller's behalf: a run's work calls create_task through runOperation (surface
// worker) with the credential that started the run, checked when the call runs, not when it was scheduled.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { toAuditResource } from '../src/core/audit.ts';
import { forgetCachedPrincipals, notifyPrincipalChange } from '../src/core/principal-cache.ts';
import { runOnBehalf } from '../src/core/run-on-behalf.ts';
import { ALL_SCOPES, Harness, MutableClock, type TestWorkspace, usingPostgres } from './helpers/harness.ts';
import { openGate, runTestRegistry } from './helpers/run-test-module.ts';

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

const request = (method: string, url: string, token: string, body?: unknown) =>
  h.request(method, url, { token, body });

const runWhen = (id: string, check: (run: any) => boolean) =>
  vi.waitFor(
    async () => {
      await h.worker!.tick();
      const res = await request('GET', `/v1/test-runs/${id}`, ws.apiKey);
      if (!check(res.body.run)) throw new Error(`run is ${JSON.stringify(res.body.run)}`);
      return res.body.run;
    },
    { timeout: 15_000, interval: 30 },
  );

/** A run started by a credential of its own, held at its gate until the test lets it call create_task. */
async function gatedCall(title: string) {
  const credential = await h.createCredential(ws.id, 'api_key');
  const res = await request('POST', '/v1/test-runs', credential.token, { mode: 'call', title, gate: true });
  expect(res.status).toBe(202);
  const run = res.body.run as { id: string; credential_id: string };
  expect(run.credential_id).toBe(credential.credential.id);
  await runWhen(run.id, (r) => r.status === 'running');
  return { run, credential };
}

const tasksTitled = (title: string) =>
  h.db
    .selectFrom('tasks')
    .select('id')
    .where('workspace_id', '=', ws.id)
    .where('title', '=', title)
    .execute();

describe(`worker calls (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('runs a registry tool on behalf of the run credential: actor system, on_behalf_of and caused_by recorded', async () => {
    const { run, credential } = await gatedCall('Written by a run');
    openGate(run.id);
    const done = await runWhen(run.id, (r) => r.status === 'completed');
    const [task] = await tasksTitled('Written by a run');
    expect(done.result_ref).toBe(task!.id);

    const [audit] = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('target_id', '=', task!.id)
      .execute();
    expect(audit).toMatchObject({
      actor_type: 'system',
      actor_credential_id: null,
      on_behalf_of: credential.credential.id,
      caused_by: run.id,
      surface: 'worker',
      tool: 'create_task',
      action: 'create',
    });
    await h.flushUsage();
    const calls = await h.db
      .selectFrom('call_events')
      .selectAll()
      .where('request_id', '=', audit!.request_id)
      .execute();
    expect(calls).toEqual([
      expect.objectContaining({
        kind: 'worker_call',
        credential_id: credential.credential.id,
        credential_path: 'worker/api_key',
        caused_by: run.id,
        http_status: 201,
      }),
    ]);
    // The audit resource (get_record_history, the request lookup) shows who acted for whom.
    expect(toAuditResource(audit!)).toMatchObject({
      actor: { type: 'system', credential_id: null, on_behalf_of: credential.credential.id },
      caused_by: run.id,
    });
  });

  it('fails the run with the error a direct call gets when the credential was revoked after scheduling', async () => {
    const { run, credential } = await gatedCall('Never written: revoked');
    expect((await h.admin('DELETE', `/credentials/${credential.credential.id}`)).status).toBeLessThan(300);
    openGate(run.id);
    const failed = await runWhen(run.id, (r) => r.status === 'failed');
    const direct = await request('POST', '/v1/tasks', credential.token, { title: 'Never written: revoked' });
    expect(direct.status).toBe(404);
    expect(failed.error.code).toBe(direct.body.error.code);
    expect(failed.error.code).toBe('workspace_not_found');
    expect(await tasksTitled('Never written: revoked')).toEqual([]);
  });

  it('fails the run with missing_required_scope when the scope was removed after scheduling', async () => {
    const { run, credential } = await gatedCall('Never written: scope');
    const fewer = ALL_SCOPES.filter((scope) => scope !== 'tasks:write');
    await h.db
      .updateTable('credentials')
      .set({ scopes: JSON.stringify(fewer) })
      .where('id', '=', credential.credential.id)
      .execute();
    // No operator action changes scopes: a change made in SQL tells the nodes' credential caches itself.
    await notifyPrincipalChange(h.db, ws.id);
    forgetCachedPrincipals();
    openGate(run.id);
    const failed = await runWhen(run.id, (r) => r.status === 'failed');
    expect(failed.error).toEqual({
      code: 'missing_required_scope',
      message: 'This operation requires the scope tasks:write.',
    });
    const direct = await request('POST', '/v1/tasks', credential.token, { title: 'Never written: scope' });
    expect(direct.body.error.code).toBe('missing_required_scope');
    expect(await tasksTitled('Never written: scope')).toEqual([]);
  });

  it('writes once when a retried job repeats its call with the same idempotency key', async () => {
    const res = await request('POST', '/v1/test-runs', ws.apiKey, {
      mode: 'call_retry',
      title: 'Written once',
    });
    const run = res.body.run as { id: string };
    const retrying = await runWhen(run.id, (r) => r.status === 'queued' && r.attempts === 1);
    expect(retrying.error.code).toBe('internal_error');
    clock.advance(2000); // the SQLite queue waits for the retry delay on the service clock
    const done = await runWhen(run.id, (r) => r.status === 'completed');
    expect(done.attempts).toBe(2);
    const tasks = await tasksTitled('Written once');
    expect(tasks).toHaveLength(1);
    expect(done.result_ref).toBe(tasks[0]!.id);
  });

  it('runOnBehalf answers like a direct call: a missing tool, invalid input', async () => {
    const [credential] = await h.db
      .selectFrom('credentials')
      .select('id')
      .where('workspace_id', '=', ws.id)
      .execute();
    const base = { workspaceId: ws.id, credentialId: credential!.id };
    const unknown = await runOnBehalf(h.service.deps, { ...base, tool: 'no_such_tool', input: {} });
    expect(unknown.ok || unknown.error.code).toBe('tool_not_found');
    const invalid = await runOnBehalf(h.service.deps, { ...base, tool: 'create_task', input: {} });
    expect(invalid.ok || invalid.error.extras.field_errors?.[0]?.field).toBe('title');
    const other = await h.workspace('Other workspace');
    const foreign = await runOnBehalf(h.service.deps, {
      workspaceId: other.id,
      credentialId: credential!.id,
      tool: 'create_task',
      input: { title: 'x' },
    });
    expect(foreign.ok || foreign.error.code).toBe('workspace_not_found');
  });
});
