// The workspace assistant: with a model (a local fake chat-completions server returning scripted tool calls)
// a run calls tools through the pipeline on the caller's behalf, refuses a tool outside the caller's scopes
// and writes without allow_writes, and is recorded as an Agent Grid run with tool calls (request_ids) and
// token cost events; without a model it answers a plan only.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { type JsonServer, jsonServer } from './helpers/loopback-servers.ts';

type Message = { role: string; content: string | null; tool_calls?: unknown[] };
let model: JsonServer;
let h: Harness;
let ws: TestWorkspace;
const requests: { auth?: string; messages: Message[]; tools: { function: { name: string } }[] }[] = [];

/** The script: the instruction names the tool calls of the first turn; after tool results, an answer. */
function reply(messages: Message[]) {
  const last = messages.at(-1)!;
  const instruction = messages.find((m) => m.role === 'user')!.content ?? '';
  if (last.role === 'tool') {
    return { content: 'Ada Lovelace is a contact of this workspace.', tool_calls: undefined };
  }
  const calls: [string, unknown][] = instruction.includes('loop forever')
    ? [['search_contacts', { query: 'Ada' }]]
    : instruction.includes('create a task')
      ? [['create_task', { title: 'Call Ada' }]]
      : [
          ['search_contacts', { query: 'Ada' }],
          ['list_tasks', {}],
        ];
  return {
    content: null,
    tool_calls: calls.map(([name, args], i) => ({
      id: `call_${i}`,
      type: 'function',
      function: { name, arguments: JSON.stringify(args) },
    })),
  };
}

beforeAll(async () => {
  model = await jsonServer('/v1/chat/completions', async (body, request) => {
    requests.push({
      auth: request.headers.authorization,
      messages: body.messages,
      tools: body.tools ?? [],
    });
    const message = reply(body.messages);
    const slow = String(body.messages[1]?.content).includes('slowly');
    await new Promise((resolve) => setTimeout(resolve, slow ? 2000 : 0));
    return {
      body: {
        model: 'fake-model-1',
        choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 120, completion_tokens: 30, total_tokens: 150 },
      },
    };
  });
  h = await Harness.start({
    env: {
      WOS_WORKER: 'on',
      WOS_WORKER_POLL_MS: '20',
      WOS_LLM_URL: model.url,
      WOS_LLM_MODEL: 'fake-model',
      WOS_LLM_API_KEY: 'sk-llm-secret-0123456789',
      WOS_ASSISTANT_MAX_STEPS: '3',
    },
  });
  ws = await h.workspace('Assistant');
  const contact = await h.request('POST', '/v1/contacts', {
    token: ws.apiKey,
    body: { name: 'Ada Lovelace', email: 'ada@example.com' },
  });
  expect(contact.status).toBe(201);
});
afterAll(async () => {
  await h.close();
  await model.close();
});

async function finished(token: string, runId: string) {
  let run: any;
  await vi.waitFor(
    async () => {
      run = (await h.request('GET', `/v1/assistants/workspace/runs/${runId}`, { token })).body.run;
      expect(['completed', 'failed']).toContain(run.status);
    },
    { timeout: 20_000, interval: 100 },
  );
  return run;
}

const get = (token: string, url: string) => h.request('GET', url, { token });

describe('create_workspace_assistant_run with a model', () => {
  it('runs scripted tool calls through the pipeline and refuses a tool outside the scopes', async () => {
    // crm:read but not tasks:read: list_tasks is outside this caller's scopes.
    const key = await h.createCredential(ws.id, 'api_key', [
      'data_agents:read',
      'data_agents:write',
      'crm:read',
    ]);
    const started = await h.request('POST', '/v1/assistants/workspace/runs', {
      token: key.token,
      body: { instruction: 'Is Ada Lovelace one of our contacts? Check her open tasks.' },
    });
    expect(started.status, started.text).toBe(202);
    expect(started.body.assistant_run.mode).toBe('model');
    expect(started.body.assistant_run.tools_offered).toContain('search_contacts');
    expect(started.body.assistant_run.tools_offered).not.toContain('list_tasks');
    expect(started.body.assistant_run.tools_offered).not.toContain('create_contact');
    expect(started.body.assistant_run.id).toBe(started.body.run.id);
    const run = await finished(key.token, started.body.assistant_run.id);
    expect(run.status).toBe('completed');
    const listed = await h.callTool(ws.mcpToken, 'list_workspace_assistant_runs', {});
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toContain(started.body.assistant_run.id);

    const agentRunId = started.body.assistant_run.agent_grid_run.id;
    const agentRun = (await get(key.token, `/v1/agent-grid/runs/${agentRunId}`)).body.run;
    expect(agentRun.status).toBe('completed');
    expect(agentRun.output.answer).toBe('Ada Lovelace is a contact of this workspace.');
    expect(agentRun.totals).toMatchObject({ tool_calls: 2, cost_events: 2, tokens_in: 240, tokens_out: 60 });

    const calls = (await get(key.token, `/v1/agent-grid/tool-calls?run_id=${agentRunId}`)).body.tool_calls;
    const search = calls.find((c: any) => c.tool === 'search_contacts');
    const refused = calls.find((c: any) => c.tool === 'list_tasks');
    expect(search).toMatchObject({ status: 'completed', registry_tool: true, arguments: { query: 'Ada' } });
    expect(search.request_id).toMatch(/^req_/);
    expect(agentRun.output.request_ids).toEqual([search.request_id]);
    expect(refused).toMatchObject({
      status: 'failed',
      error_code: 'missing_required_scope',
      request_id: null,
    });

    // The step joins its request: a worker call on the caller's behalf, caused by the platform run.
    const lookup = await get(ws.apiKey, `/v1/requests/${search.request_id}`);
    expect(lookup.status, lookup.text).toBe(200);

    // The model saw the tool result (the contact) and the refusal, and got the key as a Bearer token.
    const second = requests.find((r) => r.messages.some((m) => m.role === 'tool'))!;
    const toolMessages = second.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    expect(toolMessages[0]).toContain('Ada Lovelace');
    expect(toolMessages[1]).toContain('missing_required_scope');
    expect(second.auth).toBe('Bearer sk-llm-secret-0123456789');
    expect(second.tools.map((t) => t.function.name)).not.toContain('list_tasks');

    const costs = (await get(key.token, `/v1/agent-grid/cost-events?run_id=${agentRunId}`)).body.cost_events;
    expect(costs).toHaveLength(2);
    expect(costs[0]).toMatchObject({
      kind: 'llm_tokens',
      model: 'fake-model-1',
      tokens_in: 120,
      tokens_out: 30,
    });
  });

  it('refuses a write without allow_writes, even when the caller holds its scope', async () => {
    const started = await h.request('POST', '/v1/assistants/workspace/runs', {
      token: ws.apiKey,
      body: { instruction: 'Please create a task to call Ada.' },
    });
    expect(started.status).toBe(202);
    expect(started.body.assistant_run.tools_offered).not.toContain('create_task');
    await finished(ws.apiKey, started.body.run.id);
    const calls = (
      await get(ws.apiKey, `/v1/agent-grid/tool-calls?run_id=${started.body.assistant_run.agent_grid_run.id}`)
    ).body.tool_calls;
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      tool: 'create_task',
      status: 'failed',
      error_code: 'writes_not_allowed',
    });
    const tasks = await get(ws.apiKey, '/v1/tasks');
    expect(tasks.body.tasks).toEqual([]);
  });

  it('with allow_writes, a write the caller may make goes through the pipeline', async () => {
    const started = await h.request('POST', '/v1/assistants/workspace/runs', {
      token: ws.apiKey,
      body: { instruction: 'Please create a task to call Ada.', allow_writes: true },
    });
    expect(started.body.assistant_run.tools_offered).toContain('create_task');
    await finished(ws.apiKey, started.body.run.id);
    const tasks = await get(ws.apiKey, '/v1/tasks');
    expect(tasks.body.tasks.map((t: any) => t.title)).toEqual(['Call Ada']);
    const agentRun = (
      await get(ws.apiKey, `/v1/agent-grid/runs/${started.body.assistant_run.agent_grid_run.id}`)
    ).body.run;
    expect(agentRun.output.request_ids).toHaveLength(1);
  });

  it('stops after max_steps turns without an answer, saying so', async () => {
    const started = await h.request('POST', '/v1/assistants/workspace/runs', {
      token: ws.apiKey,
      body: { instruction: 'loop forever on contacts', max_steps: 2 },
    });
    await finished(ws.apiKey, started.body.run.id);
    const agentRun = (
      await get(ws.apiKey, `/v1/agent-grid/runs/${started.body.assistant_run.agent_grid_run.id}`)
    ).body.run;
    // The fake answers after a tool result, so two turns end with an answer; max_steps 1 would not.
    expect(agentRun.status).toBe('completed');
    const once = await h.request('POST', '/v1/assistants/workspace/runs', {
      token: ws.apiKey,
      body: { instruction: 'loop forever on contacts', max_steps: 1 },
    });
    await finished(ws.apiKey, once.body.run.id);
    const stopped = (await get(ws.apiKey, `/v1/agent-grid/runs/${once.body.assistant_run.agent_grid_run.id}`))
      .body.run;
    expect(stopped.status).toBe('failed');
    expect(stopped.error.code).toBe('max_steps_exceeded');
  });

  it('cancels a run and the Agent Grid run recording it', async () => {
    const started = await h.request('POST', '/v1/assistants/workspace/runs', {
      token: ws.apiKey,
      body: { instruction: 'think slowly about contacts' },
    });
    expect(started.status).toBe(202);
    const canceled = await h.request('POST', `/v1/assistants/workspace/runs/${started.body.run.id}/cancel`, {
      token: ws.apiKey,
      body: {},
    });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.run.status).toBe('canceled');
    const agentRun = (
      await get(ws.apiKey, `/v1/agent-grid/runs/${started.body.assistant_run.agent_grid_run.id}`)
    ).body.run;
    expect(agentRun.status).toBe('canceled');
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const after = (
      await get(ws.apiKey, `/v1/agent-grid/runs/${started.body.assistant_run.agent_grid_run.id}`)
    ).body.run;
    expect(after.status).toBe('canceled');
    expect(after.totals.tool_calls).toBe(0);
    const again = await h.request('POST', `/v1/assistants/workspace/runs/${started.body.run.id}/cancel`, {
      token: ws.apiKey,
      body: {},
    });
    expect(again.status).toBe(409);
  });

  it('keeps runs to their workspace', async () => {
    const other = await h.workspace('Other');
    const runs = await get(other.apiKey, '/v1/assistants/workspace/runs');
    expect(runs.body.runs).toEqual([]);
    const mine = (await get(ws.apiKey, '/v1/assistants/workspace/runs')).body.runs[0];
    expect((await get(other.apiKey, `/v1/assistants/workspace/runs/${mine.id}`)).status).toBe(404);
  });
});

describe('create_workspace_assistant_run without a model', () => {
  let plain: Harness;
  beforeAll(async () => {
    plain = await Harness.start();
  });
  afterAll(async () => {
    await plain.close();
  });

  it('answers a plan only: the relevant tools with argument skeletons, never an answer', async () => {
    const w = await plain.workspace('Plan');
    const planned = await plain.request('POST', '/v1/assistants/workspace/runs', {
      token: w.apiKey,
      body: { instruction: 'Find the contacts named Ada and add a note about our call' },
    });
    expect(planned.status, planned.text).toBe(200);
    const run = planned.body.assistant_run;
    expect(run.mode).toBe('plan');
    expect(planned.body.run).toMatchObject({
      status: 'completed',
      result_ref: planned.body.assistant_run.agent_grid_run.id,
    });
    // The ID the call answers is the one the list, get and cancel use.
    expect(run.id).toBe(planned.body.run.id);
    const listed = await plain.request('GET', '/v1/assistants/workspace/runs', { token: w.apiKey });
    expect(listed.body.runs.map((r: { id: string }) => r.id)).toEqual([run.id]);
    const got = await plain.callTool(w.mcpToken, 'get_workspace_assistant_run', { run_id: run.id });
    expect(got.body.run.input.agent_grid_run_id).toBe(run.agent_grid_run.id);
    const tools = run.plan.map((p: any) => p.tool);
    expect(tools).toContain('search_contacts');
    // Reads only by default: no write tool is planned.
    expect(run.plan.every((p: any) => p.kind === 'read')).toBe(true);
    const withWrites = await plain.request('POST', '/v1/assistants/workspace/runs', {
      token: w.apiKey,
      body: { instruction: 'Create a contact named Ada Lovelace', allow_writes: true },
    });
    const create = withWrites.body.assistant_run.plan.find((p: any) => p.tool === 'create_contact');
    expect(create.arguments).toHaveProperty('name');
    expect(create.optional_fields).toContain('email');
    // Recorded as a completed Agent Grid run whose output has no answer.
    const agentRun = (
      await plain.request('GET', `/v1/agent-grid/runs/${run.agent_grid_run.id}`, { token: w.apiKey })
    ).body.run;
    expect(agentRun.status).toBe('completed');
    expect(agentRun.output).toMatchObject({ mode: 'plan', answer: null });
    expect(agentRun.metadata).toEqual({ source: 'workspace_assistant', mode: 'plan' });
  });

  it('replays a plan on a retry with the same idempotency key (its completed run)', async () => {
    const w = await plain.workspace('Retry');
    const body = { instruction: 'list my tasks', idempotency_key: 'plan-1' };
    const first = await plain.request('POST', '/v1/assistants/workspace/runs', { token: w.apiKey, body });
    const second = await plain.request('POST', '/v1/assistants/workspace/runs', { token: w.apiKey, body });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.assistant_run).toEqual(first.body.assistant_run);
    expect(second.body.run).toEqual(first.body.run);
  });

  it('plans only with tools the caller may use', async () => {
    const w = await plain.workspace('Narrow');
    const key = await plain.createCredential(w.id, 'mcp_token', ['data_agents:write', 'tasks:read']);
    const called = await plain.callTool(key.token, 'create_workspace_assistant_run', {
      instruction: 'find contacts and tasks',
    });
    expect(called.result.isError).toBeFalsy();
    const tools = called.body.assistant_run.plan.map((p: any) => p.tool);
    expect(tools).toContain('list_tasks');
    expect(tools).not.toContain('search_contacts');
  });
});
