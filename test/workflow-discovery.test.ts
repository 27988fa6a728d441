// Workflow discovery: workflows ranked by a hybrid of vector similarity and keywords, found by what their
// steps do; the system collection follows workflow events (relay) and is rebuilt by a reindex run; another
// workspace's workflows never appear.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

const post = (w: TestWorkspace, url: string, body: unknown) =>
  h.request('POST', url, { token: w.apiKey, body });

async function workflow(w: TestWorkspace, key: string, name: string, steps: unknown[], description?: string) {
  const created = await post(w, '/v1/agent-grid/workflows', {
    key,
    name,
    steps,
    ...(description ? { description } : {}),
  });
  expect(created.status, created.text).toBe(201);
  return created.body.workflow as { id: string };
}

const discover = (w: TestWorkspace, body: unknown) => post(w, '/v1/agent-grid/workflow-discovery', body);

beforeAll(async () => {
  h = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '20' } });
  ws = await h.workspace('Discovery');
  other = await h.workspace('Other');
});
afterAll(async () => {
  await h.close();
});

describe('discover_agent_grid_workflows', () => {
  let billing: { id: string };
  let triage: { id: string };

  beforeAll(async () => {
    // Its name and description say nothing about invoices: only its step tools do.
    billing = await workflow(ws, 'month_end', 'Month end routine', [
      { key: 'bill', kind: 'tool', tool: 'create_invoice', arguments: {} },
      { key: 'list', kind: 'tool', tool: 'list_invoices', arguments: {} },
    ]);
    triage = await workflow(
      ws,
      'ticket_triage',
      'Ticket triage',
      [{ key: 'find', kind: 'tool', tool: 'search_contacts', arguments: {} }],
      'Sorts new support tickets and finds who wrote in.',
    );
    await workflow(other, 'other_billing', 'Invoice everything', [
      { key: 'bill', kind: 'tool', tool: 'create_invoice', arguments: {} },
    ]);
  });

  it('finds a workflow by what its steps do, saying which fields matched', async () => {
    const found = await discover(ws, { query: 'invoices' });
    expect(found.status, found.text).toBe(200);
    expect(found.body.matches[0].workflow.id).toBe(billing.id);
    const top = found.body.matches[0];
    expect(top.matched_terms).toContain('invoice');
    expect(top.matched_fields).toContain('step_tools');
    expect(top.matched_fields).not.toContain('name');
    expect(top.score).toBeGreaterThan(0);
    // Never another workspace's workflow, even one named after the query.
    for (const match of found.body.matches) expect(match.workflow.key).not.toBe('other_billing');
  });

  it('uses the system collection once the relay indexed the workflows', async () => {
    await vi.waitFor(
      async () => {
        const found = await discover(ws, { query: 'bill customers' });
        expect(found.body.indexed_workflows).toBe(2);
      },
      { timeout: 15_000, interval: 100 },
    );
    const found = await discover(ws, { query: 'support tickets contact', top_k: 1 });
    expect(found.body.matches).toHaveLength(1);
    expect(found.body.matches[0].workflow.id).toBe(triage.id);
    expect(found.body.matches[0].vector_score).toBeGreaterThan(0);
  });

  it('filters by tool, status and trigger type', async () => {
    const byTool = await discover(ws, { query: 'routine triage', filters: { tool: 'search_contacts' } });
    expect(byTool.body.matches.map((m: any) => m.workflow.id)).toEqual([triage.id]);
    const none = await discover(ws, { query: 'invoices', filters: { trigger_type: 'event' } });
    expect(none.body.matches).toEqual([]);
  });

  it('rebuilds the index as a run and answers at once', async () => {
    const started = await post(ws, '/v1/agent-grid/workflow-discovery/reindex', {});
    expect(started.status, started.text).toBe(202);
    expect(started.body.run.status).toBe('queued');
    await vi.waitFor(
      async () => {
        const run = await h.request('GET', `/v1/agent-grid/workflow-discovery/runs/${started.body.run.id}`, {
          token: ws.apiKey,
        });
        expect(run.body.run.status).toBe('completed');
        expect(run.body.run.result_ref).toBe('2 workflows indexed');
      },
      { timeout: 15_000, interval: 100 },
    );
    const found = await discover(ws, { query: 'invoice' });
    expect(found.body.indexed_workflows).toBe(2);
    // The other workspace's run list does not show it.
    const runs = await h.request('GET', '/v1/agent-grid/workflow-discovery/runs', { token: other.apiKey });
    expect(runs.body.runs).toEqual([]);
  });

  it('follows an update: new steps are found once the relay passed, old ones no longer', async () => {
    const changed = await h.request('PATCH', `/v1/agent-grid/workflows/${triage.id}`, {
      token: ws.apiKey,
      body: { steps: [{ key: 'ticket', kind: 'tool', tool: 'create_support_ticket', arguments: {} }] },
    });
    expect(changed.status, changed.text).toBe(200);
    await vi.waitFor(
      async () => {
        const rows = await h.db
          .selectFrom('vector_documents')
          .select('text')
          .where('workspace_id', '=', ws.id)
          .where('id', '=', triage.id)
          .execute();
        expect(rows[0]?.text).toContain('create_support_ticket');
      },
      { timeout: 15_000, interval: 100 },
    );
    const byTool = await discover(ws, { query: 'triage', filters: { tool: 'search_contacts' } });
    expect(byTool.body.matches).toEqual([]);
    const found = await discover(ws, { query: 'open a support ticket', top_k: 1 });
    expect(found.body.matches[0].workflow.id).toBe(triage.id);
    // The other workspace's index holds only its own workflow.
    const theirs = await h.db
      .selectFrom('vector_documents')
      .select('id')
      .where('workspace_id', '=', other.id)
      .execute();
    expect(theirs.map((r) => r.id).every((id) => id !== triage.id && id !== billing.id)).toBe(true);
  });

  it('works over MCP and refuses bad input naming the field', async () => {
    const called = await h.callTool(ws.mcpToken, 'discover_agent_grid_workflows', {
      query: 'invoice',
      top_k: 1,
    });
    expect(called.result.isError).toBeFalsy();
    expect(called.body.matches[0].workflow.id).toBe(billing.id);
    const bad = await discover(ws, { query: '', top_k: 500, extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_failed');
    const fields = bad.body.error.field_errors.map((f: any) => f.field);
    expect(fields).toEqual(expect.arrayContaining(['query', 'top_k']));
  });
});
