// Recommendations through the real server: the action validated against its tool at create, approval, and
// execute_data_agent_recommendation running the action once on the caller's behalf (refused without the
// action's scope, previewed by dry_run without a write, failed when the action fails, stored outcome replayed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other workspace');
});
afterAll(() => h.close());

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const execute = (id: string, token = ws.mcpToken, extra: Record<string, unknown> = {}) =>
  h.callTool(token, 'execute_data_agent_recommendation', { recommendation_id: id, ...extra });
const fields = (response: { body: any }) =>
  (response.body.error?.field_errors ?? []).map((e: { field: string }) => e.field);
const tasksTitled = (title: string) =>
  h.db.selectFrom('tasks').selectAll().where('workspace_id', '=', ws.id).where('title', '=', title).execute();

async function approved(action: { tool: string; arguments: Record<string, unknown> }, title = 'Act on it') {
  const created = await post('/v1/data-agents/recommendations', {
    title,
    rationale: 'Because the data says so.',
    action,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.recommendation.id as string;
  const decided = await patch(`/v1/data-agents/recommendations/${id}`, { status: 'approved', note: 'Go.' });
  expect(decided.body.recommendation.status).toBe('approved');
  return id;
}

describe('recommendations', () => {
  it('name an existing tool whose input schema their arguments satisfy', async () => {
    const base = { title: 'T', rationale: 'R' };
    const unknown = await post('/v1/data-agents/recommendations', {
      ...base,
      action: { tool: 'launch_rocket', arguments: {} },
    });
    expect(unknown.status).toBe(400);
    expect(fields(unknown)).toEqual(['action.tool']);
    const itself = await post('/v1/data-agents/recommendations', {
      ...base,
      action: { tool: 'execute_data_agent_recommendation', arguments: { recommendation_id: 'x' } },
    });
    expect(fields(itself)).toEqual(['action.tool']);
    const missing = await post('/v1/data-agents/recommendations', {
      ...base,
      action: { tool: 'create_task', arguments: {} },
    });
    expect(missing.status).toBe(400);
    expect(fields(missing)).toEqual(['action.arguments.title']);
    const stray = await post('/v1/data-agents/recommendations', {
      ...base,
      action: { tool: 'create_task', arguments: { title: 'x', colour: 'red' } },
    });
    expect(fields(stray)).toEqual(['action.arguments.colour']);
    const typed = await post('/v1/data-agents/recommendations', {
      ...base,
      action: { tool: 'create_task', arguments: { title: 42 } },
    });
    expect(fields(typed)).toEqual(['action.arguments.title']);
    const control = await post('/v1/data-agents/recommendations', {
      ...base,
      action: { tool: 'create_task', arguments: { title: 'x', idempotency_key: 'k' } },
    });
    expect(fields(control)).toEqual(['action.arguments.idempotency_key']);
    const evidence = await post('/v1/data-agents/recommendations', {
      ...base,
      evidence: [{ type: 'data_agent_insight', id: 'dai_missing' }],
      action: { tool: 'create_task', arguments: { title: 'x' } },
    });
    expect(evidence.status).toBe(404);
    const count = await h.db
      .selectFrom('data_agent_recommendations')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('workspace_id', '=', ws.id)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('move proposed -> approved | rejected by update (write and execute), then 409 naming the status', async () => {
    const created = await post('/v1/data-agents/recommendations', {
      title: 'Reject me',
      rationale: 'R',
      action: { tool: 'create_task', arguments: { title: 'Never' } },
      idempotency_key: 'rec-reject',
    });
    const id = created.body.recommendation.id;
    expect(created.body.recommendation).toMatchObject({
      status: 'proposed',
      execution: null,
      action: { tool: 'create_task' },
    });
    const early = await execute(id);
    expect(early.body.error.code).toBe('conflict');
    expect(early.body.error.message).toContain('proposed');
    const edited = await patch(`/v1/data-agents/recommendations/${id}`, {
      action: { tool: 'create_task', arguments: { title: 'Never, edited' } },
    });
    expect(edited.body.recommendation.action.arguments).toEqual({ title: 'Never, edited' });
    const badEdit = await patch(`/v1/data-agents/recommendations/${id}`, {
      action: { tool: 'create_task', arguments: {} },
    });
    expect(fields(badEdit)).toEqual(['action.arguments.title']);
    const rejected = await patch(`/v1/data-agents/recommendations/${id}`, {
      status: 'rejected',
      note: 'No.',
    });
    expect(rejected.body.recommendation).toMatchObject({ status: 'rejected', decision_note: 'No.' });
    const again = await patch(`/v1/data-agents/recommendations/${id}`, { status: 'approved' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('rejected');
    const run = await execute(id);
    expect(run.body.error.code).toBe('conflict');
    expect(run.body.error.message).toContain('rejected');
    expect(await tasksTitled('Never, edited')).toHaveLength(0);
    expect((await post(`/v1/data-agents/recommendations/${id}/execute`, {})).status).toBe(404);
  });

  it("are refused, and left approved, when the caller lacks the action tool's scope", async () => {
    const id = await approved({ tool: 'create_task', arguments: { title: 'Scoped follow-up' } });
    const agent = await h.createCredential(ws.id, 'mcp_token', [
      'data_agents:read',
      'data_agents:write',
      'data_agents:execute',
    ]);
    const refused = await execute(id, agent.token);
    expect(refused.result.isError).toBe(true);
    expect(refused.body.error).toMatchObject({
      code: 'missing_required_scope',
      required_scope: 'tasks:write',
    });
    expect(await tasksTitled('Scoped follow-up')).toHaveLength(0);
    const after = (await get(`/v1/data-agents/recommendations/${id}`)).body.recommendation;
    expect(after).toMatchObject({ status: 'approved', execution: null });
    const noExecute = await h.createCredential(ws.id, 'mcp_token', [
      'data_agents:read',
      'data_agents:write',
      'tasks:write',
    ]);
    const withoutExecuteScope = await execute(id, noExecute.token);
    expect(withoutExecuteScope.body.error).toMatchObject({ required_scope: 'data_agents:execute' });
  });

  it("are refused, and left approved, when the action tool's module is not enabled", async () => {
    const noTasks = await h.workspace('No tasks', ['data_agents', 'workspace']);
    const created = await h.request('POST', '/v1/data-agents/recommendations', {
      token: noTasks.apiKey,
      body: {
        title: 'T',
        rationale: 'R',
        action: { tool: 'create_task', arguments: { title: 'Off module' } },
      },
    });
    const id = created.body.recommendation.id;
    await h.request('PATCH', `/v1/data-agents/recommendations/${id}`, {
      token: noTasks.apiKey,
      body: { status: 'approved' },
    });
    const refused = await execute(id, noTasks.mcpToken);
    expect(refused.body.error.code).toBe('module_not_enabled');
    const after = await h.request('GET', `/v1/data-agents/recommendations/${id}`, { token: noTasks.apiKey });
    expect(after.body.recommendation).toMatchObject({ status: 'approved', execution: null });
  });

  it("execute the action once on the caller's behalf, though called twice, and store its outcome", async () => {
    const id = await approved({ tool: 'create_task', arguments: { title: 'Call the stalled deals' } });
    const first = await execute(id);
    expect(first.result.isError).toBeFalsy();
    const recommendation = first.body.recommendation;
    expect(recommendation.status).toBe('executed');
    expect(recommendation.execution).toMatchObject({
      status: 201,
      request_id: expect.stringMatching(/^req_/),
    });
    expect(recommendation.execution.result.task.title).toBe('Call the stalled deals');
    expect(recommendation.execution.request_id).not.toBe(first.body.request_id);
    expect(recommendation.execution.execute_request_id).toBe(first.body.request_id);
    const tasks = await tasksTitled('Call the stalled deals');
    expect(tasks).toHaveLength(1);
    expect(tasks[0]!.id).toBe(recommendation.execution.result.task.id);

    const second = await execute(id);
    expect(second.body.recommendation).toEqual(recommendation);
    expect(await tasksTitled('Call the stalled deals')).toHaveLength(1);

    // The action's audit names the worker on the caller's behalf, and the outcome is audited and emitted.
    const audits = await h.db
      .selectFrom('audit_events')
      .selectAll()
      .where('workspace_id', '=', ws.id)
      .where('request_id', '=', recommendation.execution.request_id)
      .execute();
    expect(audits.map((a) => [a.tool, a.actor_type, a.actor_name])).toEqual([
      ['create_task', 'system', 'data_agent_recommendation'],
    ]);
    const ownAudits = await h.db
      .selectFrom('audit_events')
      .select(['action'])
      .where('workspace_id', '=', ws.id)
      .where('request_id', '=', first.body.request_id)
      .orderBy('occurred_at')
      .execute();
    expect(ownAudits.map((a) => a.action).sort()).toEqual(['execute', 'execution_executed']);
    const events = await h.db
      .selectFrom('outbox_events')
      .select(['payload'])
      .where('workspace_id', '=', ws.id)
      .where('name', '=', 'data_agent_recommendation.status_changed')
      .where('target_id', '=', id)
      .orderBy('id')
      .execute();
    expect(events.map((e) => JSON.parse(e.payload).status)).toEqual(['approved', 'executing', 'executed']);
    const listed = await get('/v1/data-agents/recommendations?status=executed');
    expect(listed.body.recommendations.map((r: any) => r.id)).toEqual([id]);
  });

  it('run concurrent executes of one recommendation into one action', async () => {
    const id = await approved({ tool: 'create_task', arguments: { title: 'Raced follow-up' } });
    const answers = await Promise.all([execute(id), execute(id), execute(id)]);
    expect(await tasksTitled('Raced follow-up')).toHaveLength(1);
    for (const answer of answers) {
      if (answer.result.isError) expect(answer.body.error.message).toMatch(/executing|executed/);
    }
    expect((await get(`/v1/data-agents/recommendations/${id}`)).body.recommendation.status).toBe('executed');
  });

  it('preview a dry_run tool without writing anything, and refuse a preview of a tool without dry_run', async () => {
    const deal = (await post('/v1/deals', { name: 'Big one' })).body.deal;
    expect(deal.stage_key).toBe('new');
    const id = await approved({ tool: 'update_deal_stage', arguments: { deal_id: deal.id, stage: 'won' } });
    const audited = async () =>
      Number(
        (
          await h.db
            .selectFrom('audit_events')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('workspace_id', '=', ws.id)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const auditsBefore = await audited();
    const preview = await execute(id, ws.mcpToken, { dry_run: true });
    expect(preview.result.isError).toBeFalsy();
    expect(preview.body.dry_run).toBe(true);
    expect(preview.body.preview.status).toBe(200);
    expect(preview.body.preview.result).toMatchObject({ dry_run: true, deal: { stage_key: 'won' } });
    expect(preview.body.recommendation.status).toBe('approved');
    expect((await get(`/v1/deals/${deal.id}`)).body.deal.stage_key).toBe('new');
    expect((await get(`/v1/data-agents/recommendations/${id}`)).body.recommendation).toMatchObject({
      status: 'approved',
      execution: null,
    });
    expect(await audited()).toBe(auditsBefore);

    const done = await execute(id);
    expect(done.body.recommendation.status).toBe('executed');
    expect((await get(`/v1/deals/${deal.id}`)).body.deal.stage_key).toBe('won');

    const taskRec = await approved({ tool: 'create_task', arguments: { title: 'Not previewable' } });
    const refused = await execute(taskRec, ws.mcpToken, { dry_run: true });
    expect(refused.body.error.code).toBe('validation_failed');
    expect(fields(refused)).toEqual(['dry_run']);
  });

  it('are failed, with the error stored, when the action fails', async () => {
    const deal = (await post('/v1/deals', { name: 'Doomed' })).body.deal;
    const id = await approved({ tool: 'update_deal_stage', arguments: { deal_id: deal.id, stage: 'won' } });
    // The deal disappears from this workspace's view between approval and execution.
    await h.db.deleteFrom('deals').where('workspace_id', '=', ws.id).where('id', '=', deal.id).execute();
    const answer = await execute(id);
    expect(answer.result.isError).toBeFalsy();
    expect(answer.body.recommendation).toMatchObject({
      status: 'failed',
      execution: { status: 404, result: { error: { code: 'resource_not_found' } } },
    });
    const again = await execute(id);
    expect(again.body.recommendation).toEqual(answer.body.recommendation);
  });

  it('take over an execution left stale by a stopped process, without creating twice', async () => {
    const id = await approved({ tool: 'create_task', arguments: { title: 'Stale follow-up' } });
    // A process claimed it and stopped before recording the outcome (the action may or may not have run).
    await h.db
      .updateTable('data_agent_recommendations')
      .set({
        status: 'executing',
        execute_request_id: 'req_stopped_execute',
        execution_request_id: 'req_stopped',
        execution_started_at: h.clock.now().toISOString(),
      })
      .where('workspace_id', '=', ws.id)
      .where('id', '=', id)
      .execute();
    const busy = await execute(id);
    expect(busy.body.error.code).toBe('conflict');
    expect(busy.body.error.message).toContain('executing');
    h.clock.advance(6 * 60_000);
    const taken = await execute(id);
    expect(taken.body.recommendation.status).toBe('executed');
    expect(await tasksTitled('Stale follow-up')).toHaveLength(1);
  });

  it('stay in their workspace', async () => {
    const mine = (await get('/v1/data-agents/recommendations')).body.recommendations;
    expect(mine.length).toBeGreaterThan(0);
    expect((await get('/v1/data-agents/recommendations', other.apiKey)).body.recommendations).toEqual([]);
    const id = mine[0].id;
    expect((await get(`/v1/data-agents/recommendations/${id}`, other.apiKey)).status).toBe(404);
    expect((await patch(`/v1/data-agents/recommendations/${id}`, { title: 'x' }, other.apiKey)).status).toBe(
      404,
    );
    const run = await execute(id, other.mcpToken);
    expect(run.body.error.code).toBe('resource_not_found');
    const record = await h.callTool(other.mcpToken, 'get_record', { type: 'data_agent_recommendation', id });
    expect(record.body.error.code).toBe('resource_not_found');
  });
});
