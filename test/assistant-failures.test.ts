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
/** What the model does before answering an instruction mentioning "revoke". */
let beforeRevokeAnswer: () => Promise<void> = async () => {};

const toolCall = (name: string, args: unknown) => ({
  body: {
    model: 'fake',
    choices: [
      {
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_0', type: 'function', function: { name, arguments: JSON.stringify(args) } },
          ],
        },
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
  },
});

beforeAll(async () => {
  // A model that never answers an instruction mentioning "hang", asks for a tool on one mentioning "revoke"
  // (after the test's hook), and answers 400 to any other.
  model = await jsonServer('/v1/chat/completions', async (body) => {
    requests++;
    const instruction = String(body.messages[1]?.content);
    if (instruction.includes('hang')) return undefined;
    if (instruction.includes('revoke')) {
      await beforeRevokeAnswer();
      return toolCall('search_contacts', { query: 'Ada' });
    }
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
async function ended(h: Harness, ws: TestWorkspace, instruction: string, token = ws.apiKey) {
  const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
  const started = await h.request('POST', '/v1/assistants/workspace/runs', {
    token,
    body: { instruction },
  });
  expect(started.status, started.text).toBe(202);
  let run: any;
  let agentRun: any;
  await vi.waitFor(
    async () => {
      run = (await get(`/v1/assistants/workspace/runs/${started.body.run.id}`)).body.run;
      agentRun = (await get(`/v1/agent-grid/runs/${started.body.assistant_run.agent_grid_run.id}`)).body.run;
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

describe('a workspace assistant run whose credential is revoked mid-run', () => {
  let h: Harness;
  let ws: TestWorkspace;
  beforeAll(async () => {
    ({ h, ws } = await start({}));
  });
  afterAll(() => h.close());

  it('fails its Agent Grid run, ended by the service, and the platform run, saying why', async () => {
    const key = await h.createCredential(ws.id, 'api_key');
    // The credential is revoked while the model thinks: the tool call it then asks for is refused.
    beforeRevokeAnswer = async () => {
      expect((await h.admin('DELETE', `/credentials/${key.credential.id}`)).status).toBe(200);
    };
    const { run, agentRun } = await ended(h, ws, 'revoke me and search contacts', key.token);
    const error = {
      code: 'workspace_not_found',
      message: expect.stringContaining(`The credential ${key.credential.id} this run acts for was revoked`),
    };
    expect(run).toMatchObject({ status: 'failed', error });
    expect(agentRun).toMatchObject({
      status: 'failed',
      error,
      output: { mode: 'model', answer: null, request_ids: [], model_turns: 1 },
    });
    expect(agentRun.finished_at).not.toBeNull();
    // The credential could not record the end: the service did, on the run's behalf, with its event.
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('target_id', '=', agentRun.id)
      .where('actor_type', '=', 'system')
      .where('surface', '=', 'system')
      .execute();
    expect(audits).toHaveLength(1);
    expect(audits[0]).toMatchObject({ caused_by: run.id, action: 'update', on_behalf_of: null });
    const events = await h.db
      .selectFrom('outbox_events')
      .select(['name', 'payload'])
      .where('workspace_id', '=', ws.id)
      .where('request_id', '=', audits[0]!.request_id)
      .execute();
    expect(events.map((e) => [e.name, JSON.parse(e.payload).status])).toEqual([
      ['agent_grid_run.updated', 'failed'],
    ]);
  });
});
