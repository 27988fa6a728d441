// A workspace assistant run that fails never leaves its Agent Grid run running: a model that hangs past
// WOS_LLM_TIMEOUT_MS on every try, or answers an error, fails it with upstream_unavailable and the reason;
// a run stopped at its job's time limit (1 s here, with a model that never answers) fails it with timeout,
// as the platform run is failed.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ModuleDefinition } from '../src/core/module.ts';
import { ASSISTANT_JOB } from '../src/modules/data-agents/agent-grid/assistant-loop.ts';
import { moduleList } from '../src/modules/module-list.ts';
import { buildRegistry } from '../src/registry.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { type JsonServer, jsonServer } from './helpers/loopback-servers.ts';

let model: JsonServer;
let requests = 0;

beforeAll(async () => {
  // A model that never answers an instruction mentioning "hang", and answers 400 to any other.
  model = await jsonServer('/v1/chat/completions', (body) => {
    requests++;
    if (String(body.messages[1]?.content).includes('hang')) return undefined;
    return { status: 400, body: { error: { message: 'bad request' } } };
  });
});
afterAll(() => model.close());

async function start(env: Record<string, string>, registry?: ReturnType<typeof buildRegistry>) {
  const h = await Harness.start({
    registry,
    env: {
      WOS_WORKER: 'on',
      WOS_WORKER_POLL_MS: '20',
      WOS_LLM_URL: model.url,
      WOS_LLM_MODEL: 'fake',
      ...env,
    },
  });
  return { h, ws: await h.workspace('Assistant failures') };
}

/** Starts a run and waits until both its platform run and its Agent Grid run have ended. */
async function ended(h: Harness, ws: TestWorkspace, instruction: string) {
  const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
  const started = await h.request('POST', '/v1/assistants/workspace/runs', {
    token: ws.apiKey,
    body: { instruction },
  });
  expect(started.status, started.text).toBe(202);
  let run: any;
  let agentRun: any;
  await vi.waitFor(
    async () => {
      run = (await get(`/v1/assistants/workspace/runs/${started.body.run.id}`)).body.run;
      agentRun = (await get(`/v1/agent-grid/runs/${started.body.assistant_run.id}`)).body.run;
      expect(run.status).not.toMatch(/queued|running/);
      expect(agentRun.status).not.toMatch(/queued|running/);
    },
    { timeout: 20_000, interval: 100 },
  );
  return { run, agentRun };
}

describe('a workspace assistant run whose model fails', () => {
  let h: Harness;
  let ws: TestWorkspace;
  beforeAll(async () => {
    ({ h, ws } = await start({ WOS_LLM_TIMEOUT_MS: '150' }));
  });
  afterAll(() => h.close());

  it('fails its Agent Grid run when the model hangs past WOS_LLM_TIMEOUT_MS on every try', async () => {
    const before = requests;
    const { run, agentRun } = await ended(h, ws, 'hang on contacts');
    expect(requests - before).toBe(3);
    const message = 'The language model failed: the model endpoint timed out.';
    expect(run).toMatchObject({ status: 'failed', error: { code: 'upstream_unavailable', message } });
    expect(agentRun).toMatchObject({ status: 'failed', error: { code: 'upstream_unavailable', message } });
    expect(agentRun.finished_at).not.toBeNull();
    expect(agentRun.output).toEqual({ mode: 'model', answer: null, request_ids: [], model_turns: 1 });
  });

  it('fails its Agent Grid run when the model answers an error', async () => {
    const { run, agentRun } = await ended(h, ws, 'refuse contacts');
    const message = 'The language model failed: the model endpoint answered HTTP 400.';
    expect(run.error).toEqual({ code: 'upstream_unavailable', message });
    expect(agentRun).toMatchObject({ status: 'failed', error: { code: 'upstream_unavailable', message } });
  });
});

describe('a workspace assistant run stopped at its time limit', () => {
  let h: Harness;
  let ws: TestWorkspace;
  beforeAll(async () => {
    // The assistant's job with a 1 s limit; the model's own timeout (60 s) never comes first.
    const modules = (moduleList as readonly ModuleDefinition[]).map((m) =>
      m.name === 'data_agents'
        ? { ...m, jobs: m.jobs?.map((j) => (j.name === ASSISTANT_JOB ? { ...j, timeoutSeconds: 1 } : j)) }
        : m,
    );
    ({ h, ws } = await start({}, buildRegistry(modules)));
  });
  afterAll(() => h.close());

  it('fails its Agent Grid run with timeout, as the platform run, instead of leaving it running', async () => {
    const { run, agentRun } = await ended(h, ws, 'hang on contacts');
    expect(run.error.code).toBe('timeout');
    expect(run.status).toBe('failed');
    expect(agentRun).toMatchObject({
      status: 'failed',
      error: { code: 'timeout', message: 'The run exceeded its time limit of 1 s and was stopped.' },
      output: { mode: 'model', answer: null, request_ids: [], model_turns: 1 },
    });
    expect(agentRun.finished_at).not.toBeNull();
  });
});
