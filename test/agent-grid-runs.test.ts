// Agent Grid runs: one version each, children that keep the totals, request_ids that join a step to its
// audit events, the 409 of a finished run, filters and isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let agentId: string;
let agentVersionId: string;
let workflowVersionId: string;

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const fields = (response: { body: any }) => response.body.error.field_errors.map((e: any) => e.field);
const newRun = async (body: Record<string, unknown> = {}) => {
  const response = await post('/v1/agent-grid/runs', { agent_version_id: agentVersionId, ...body });
  expect(response.status).toBe(201);
  return response.body.run;
};

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other workspace');
  const agent = await post('/v1/agent-grid/agents', {
    key: 'triage',
    name: 'Triage',
    instructions: 'Sort tickets.',
    tools: ['create_contact', 'search_contacts'],
  });
  agentId = agent.body.agent.id;
  agentVersionId = (await post('/v1/agent-grid/agent-versions', { agent_id: agentId })).body.agent_version.id;
  const workflow = await post('/v1/agent-grid/workflows', {
    key: 'flow',
    name: 'Flow',
    steps: [{ key: 'find', kind: 'tool', tool: 'search_contacts' }],
  });
  workflowVersionId = (
    await post('/v1/agent-grid/workflow-versions', { workflow_id: workflow.body.workflow.id })
  ).body.workflow_version.id;
});
afterAll(() => h.close());

describe('agent grid runs', () => {
  it('run exactly one agent or workflow version of this workspace', async () => {
    expect(fields(await post('/v1/agent-grid/runs', {}))).toEqual([
      'agent_version_id',
      'workflow_version_id',
    ]);
    const both = await post('/v1/agent-grid/runs', {
      agent_version_id: agentVersionId,
      workflow_version_id: workflowVersionId,
    });
    expect(fields(both)).toEqual(['agent_version_id', 'workflow_version_id']);
    expect(
      (await post('/v1/agent-grid/runs', { agent_version_id: agentVersionId }, other.apiKey)).status,
    ).toBe(404);
    const run = await newRun({ input: { ticket: 'T-1' }, metadata: { trace: 'abc' } });
    expect(run).toMatchObject({
      agent_id: agentId,
      agent_version_id: agentVersionId,
      workflow_version_id: null,
      status: 'queued',
      input: { ticket: 'T-1' },
      output: null,
      started_at: null,
      totals: {
        tool_calls: 0,
        retrieval_hits: 0,
        cost_events: 0,
        tokens_in: 0,
        tokens_out: 0,
        cost_micros: 0,
        currency: 'USD',
      },
    });
    const flow = await post('/v1/agent-grid/runs', {
      workflow_version_id: workflowVersionId,
      status: 'running',
    });
    expect(flow.body.run).toMatchObject({
      workflow_version_id: workflowVersionId,
      agent_id: null,
      status: 'running',
    });
    expect(flow.body.run.started_at).toBe(flow.body.run.created_at);
    const child = await post('/v1/agent-grid/runs', {
      agent_version_id: agentVersionId,
      parent_run_id: flow.body.run.id,
    });
    expect(child.body.run.parent_run_id).toBe(flow.body.run.id);
    const children = await get(`/v1/agent-grid/runs?parent_run_id=${flow.body.run.id}`);
    expect(children.body.runs.map((r: any) => r.id)).toEqual([child.body.run.id]);
  });

  it('keep totals equal to their children, recomputed in the child transaction', async () => {
    const run = await newRun();
    const call = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'web_search',
      arguments: { q: 'reset password' },
      duration_ms: 120,
      result_summary: '3 pages',
    });
    expect(call.status).toBe(201);
    expect(call.body.tool_call).toMatchObject({
      registry_tool: false,
      status: 'completed',
      request_id: null,
    });
    const afterCall = (await get(`/v1/agent-grid/runs/${run.id}`)).body.run;
    expect(afterCall.status).toBe('running');
    expect(afterCall.started_at).not.toBeNull();
    expect(afterCall.totals.tool_calls).toBe(1);

    const hit = await post('/v1/agent-grid/retrieval-hits', {
      run_id: run.id,
      collection_key: 'help',
      document_id: 'article-42',
      score: 0.82,
      rank: 1,
      query: 'reset password',
    });
    expect(hit.body.retrieval_hit).toMatchObject({ score: 0.82, rank: 1 });
    const llm = {
      run_id: run.id,
      kind: 'llm_tokens',
      model: 'gpt-4o-mini',
      tokens_in: 1000,
      tokens_out: 200,
      cost_micros: 450,
    };
    expect(fields(await post('/v1/agent-grid/cost-events', { ...llm, model: undefined }))).toEqual(['model']);
    expect(fields(await post('/v1/agent-grid/cost-events', { ...llm, kind: 'tool' }))).toEqual([
      'tokens_out',
    ]);
    expect(fields(await post('/v1/agent-grid/cost-events', { ...llm, currency: 'EUR' }))).toEqual([
      'currency',
    ]);
    const otherRun = await newRun();
    const foreignCall = (await post('/v1/agent-grid/tool-calls', { run_id: otherRun.id, tool: 'x' })).body
      .tool_call;
    expect(
      fields(await post('/v1/agent-grid/cost-events', { ...llm, tool_call_id: foreignCall.id })),
    ).toEqual(['tool_call_id']);
    // Concurrent children of one run: every one counted.
    const responses = await Promise.all([
      ...Array.from({ length: 6 }, () => post('/v1/agent-grid/cost-events', llm)),
      post('/v1/agent-grid/cost-events', {
        run_id: run.id,
        kind: 'embedding',
        model: 'e5',
        tokens_in: 30,
        cost_micros: 2,
      }),
      post('/v1/agent-grid/cost-events', {
        run_id: run.id,
        kind: 'tool',
        tool_call_id: call.body.tool_call.id,
        units: 1.5,
        cost_micros: 1000,
      }),
      ...Array.from({ length: 3 }, () =>
        post('/v1/agent-grid/tool-calls', { run_id: run.id, tool: 'search_contacts' }),
      ),
    ]);
    expect(responses.map((r) => r.status)).toEqual(Array(11).fill(201));
    const totals = (await get(`/v1/agent-grid/runs/${run.id}`)).body.run.totals;
    expect(totals).toEqual({
      tool_calls: 4,
      retrieval_hits: 1,
      cost_events: 8,
      tokens_in: 6030,
      tokens_out: 1200,
      cost_micros: 6 * 450 + 2 + 1000,
      currency: 'USD',
    });
    const events = await get(`/v1/agent-grid/cost-events?run_id=${run.id}&kind=llm_tokens`);
    expect(events.body.cost_events).toHaveLength(6);
    const page = await get(`/v1/agent-grid/tool-calls?run_id=${run.id}&limit=3`);
    expect(page.body.tool_calls).toHaveLength(3);
    const rest = await get(
      `/v1/agent-grid/tool-calls?run_id=${run.id}&limit=3&cursor=${page.body.next_cursor}`,
    );
    expect(rest.body.tool_calls.map((c: any) => c.id)).toEqual([call.body.tool_call.id]);
  });

  it('join a registry tool call to its request and audit events', async () => {
    const run = await newRun();
    const contact = await post('/v1/contacts', { name: 'Ada Lovelace' });
    const requestId = contact.body.request_id;
    const recorded = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'create_contact',
      arguments: { name: 'Ada Lovelace' },
      request_id: requestId,
    });
    expect(recorded.status).toBe(201);
    expect(recorded.body.tool_call).toMatchObject({ registry_tool: true, request_id: requestId });
    const lookup = await get(`/v1/requests/${requestId}`);
    expect(lookup.body.request.audit_events[0]).toMatchObject({
      target_type: 'contact',
      target_id: contact.body.contact.id,
    });
    const byRequest = await get(`/v1/agent-grid/tool-calls?request_id=${requestId}`);
    expect(byRequest.body.tool_calls.map((c: any) => c.id)).toEqual([recorded.body.tool_call.id]);

    // An MCP call's request is the tool's too.
    const viaMcp = await h.callTool(ws.mcpToken, 'search_contacts', { query: 'Ada' });
    await h.flushUsage();
    const mcpCall = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'search_contacts',
      request_id: viaMcp.body.request_id,
    });
    expect(mcpCall.status).toBe(201);

    const wrongTool = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'search_contacts',
      request_id: requestId,
    });
    expect(fields(wrongTool)).toEqual(['request_id']);
    expect(wrongTool.body.error.field_errors[0].message).toContain('POST /v1/contacts');
    const unknown = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'create_contact',
      request_id: 'req_nope',
    });
    expect(fields(unknown)).toEqual(['request_id']);
    const external = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'web_search',
      request_id: requestId,
    });
    expect(fields(external)).toEqual(['request_id']);
    // Another workspace's request is unknown here.
    const foreign = await post('/v1/contacts', { name: 'Grace' }, other.apiKey);
    const foreignRun = await post('/v1/agent-grid/tool-calls', {
      run_id: run.id,
      tool: 'create_contact',
      request_id: foreign.body.request_id,
    });
    expect(fields(foreignRun)).toEqual(['request_id']);
  });

  it('finish once; a finished run takes no children (409 naming its status)', async () => {
    const run = await newRun();
    expect(fields(await patch(`/v1/agent-grid/runs/${run.id}`, {}))).toEqual(['(body)']);
    const wrong = await patch(`/v1/agent-grid/runs/${run.id}`, {
      status: 'completed',
      error: { code: 'x', message: 'y' },
    });
    expect(fields(wrong)).toEqual(['error']);
    const failed = await patch(`/v1/agent-grid/runs/${run.id}`, {
      status: 'failed',
      error: { code: 'tool_failed', message: 'create_task answered 403' },
      output: { partial: true },
    });
    expect(failed.status).toBe(200);
    expect(failed.body.run).toMatchObject({
      status: 'failed',
      error: { code: 'tool_failed', message: 'create_task answered 403' },
      output: { partial: true },
      started_at: null,
      duration_ms: null,
    });
    expect(failed.body.run.finished_at).not.toBeNull();
    for (const [url, body] of [
      ['/v1/agent-grid/tool-calls', { run_id: run.id, tool: 'web_search' }],
      [
        '/v1/agent-grid/retrieval-hits',
        { run_id: run.id, collection_key: 'help', document_id: 'd', score: 1 },
      ],
      ['/v1/agent-grid/cost-events', { run_id: run.id, kind: 'compute', cost_micros: 1 }],
      ['/v1/agent-grid/runs', { agent_version_id: agentVersionId, parent_run_id: run.id }],
    ] as const) {
      const response = await post(url, body);
      expect(response.status, url).toBe(409);
      expect(response.body.error.code).toBe('conflict');
      expect(response.body.error.message).toContain('failed');
    }
    expect((await patch(`/v1/agent-grid/runs/${run.id}`, { status: 'completed' })).status).toBe(409);

    const good = await newRun({ status: 'running' });
    h.clock.advance(1500);
    const done = await patch(`/v1/agent-grid/runs/${good.id}`, {
      status: 'completed',
      output: { answer: 42 },
    });
    expect(done.body.run).toMatchObject({ status: 'completed', duration_ms: 1500, output: { answer: 42 } });
    const listed = await get(`/v1/agent-grid/runs?agent_id=${agentId}&status=completed`);
    expect(listed.body.runs.map((r: any) => r.id)).toContain(good.id);
    expect(listed.body.runs.every((r: any) => r.status === 'completed')).toBe(true);
  });

  it('replay a retried child without counting it twice', async () => {
    const run = await newRun({ idempotency_key: 'run-1' });
    const again = await post('/v1/agent-grid/runs', {
      agent_version_id: agentVersionId,
      idempotency_key: 'run-1',
    });
    expect(again.status).toBe(200);
    expect(again.body.run.id).toBe(run.id);
    const body = { run_id: run.id, kind: 'compute', units: 2, cost_micros: 10, idempotency_key: 'cost-1' };
    const first = await post('/v1/agent-grid/cost-events', body);
    const retried = await post('/v1/agent-grid/cost-events', body);
    expect([first.status, retried.status]).toEqual([201, 200]);
    expect(retried.body.cost_event.id).toBe(first.body.cost_event.id);
    expect((await post('/v1/agent-grid/cost-events', { ...body, cost_micros: 11 })).status).toBe(409);
    const totals = (await get(`/v1/agent-grid/runs/${run.id}`)).body.run.totals;
    expect(totals).toMatchObject({ cost_events: 1, cost_micros: 10 });
  });

  it('stay in their workspace', async () => {
    const run = await newRun();
    expect((await get(`/v1/agent-grid/runs/${run.id}`, other.apiKey)).status).toBe(404);
    expect(
      (await post('/v1/agent-grid/tool-calls', { run_id: run.id, tool: 'x' }, other.apiKey)).status,
    ).toBe(404);
    expect((await patch(`/v1/agent-grid/runs/${run.id}`, { status: 'canceled' }, other.apiKey)).status).toBe(
      404,
    );
    expect((await get('/v1/agent-grid/runs', other.apiKey)).body.runs).toEqual([]);
    expect((await get('/v1/agent-grid/cost-events', other.apiKey)).body.cost_events).toEqual([]);
    const mcp = await h.callTool(ws.mcpToken, 'list_agent_grid_runs', { agent_id: agentId, limit: 2 });
    expect(mcp.body.runs).toHaveLength(2);
    expect(mcp.body.next_cursor).toBeDefined();
  });
});
