// get_workspace_assistant_summary: one call to orient an assistant; only the sections the caller's scopes
// allow (a caller without crm:read sees no deals), and counts of the caller's workspace only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

const post = async (w: TestWorkspace, url: string, body: unknown) => {
  const created = await h.request('POST', url, { token: w.apiKey, body });
  expect(created.status, created.text).toBe(201);
  return created.body;
};
const summaryOf = async (token: string) => {
  const got = await h.request('GET', '/v1/assistants/workspace/summary', { token });
  expect(got.status, got.text).toBe(200);
  return got.body.summary;
};

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Summary');
  other = await h.workspace('Other');
  await post(ws, '/v1/contacts', { name: 'Ada Lovelace' });
  await post(ws, '/v1/deals', {
    name: 'Renewal',
    stage_key: 'proposal',
    amount_cents: 50_000,
    currency: 'USD',
  });
  await post(ws, '/v1/deals', {
    name: 'Upsell',
    stage_key: 'proposal',
    amount_cents: 20_000,
    currency: 'USD',
  });
  await post(ws, '/v1/deals', { name: 'New logo', stage_key: 'new', amount_cents: 1_000, currency: 'EUR' });
  await post(ws, '/v1/tasks', { title: 'Call Ada' });
  await post(ws, '/v1/activities', { type: 'call', summary: 'Called Ada about the renewal' });
  // The other workspace has records of its own that must not be counted here.
  for (const name of ['Bob', 'Carol', 'Dan']) await post(other, '/v1/contacts', { name });
  await post(other, '/v1/deals', { name: 'Theirs', stage_key: 'proposal', amount_cents: 9, currency: 'USD' });
});
afterAll(async () => {
  await h.close();
});

describe('get_workspace_assistant_summary', () => {
  it('gives modules, tools, counts, open work, activity and agent runs of this workspace', async () => {
    const summary = await summaryOf(ws.apiKey);
    expect(summary.workspace).toEqual({ id: ws.id, name: 'Summary' });
    expect(summary.enabled_modules).toEqual(expect.arrayContaining(['crm', 'tasks', 'data_agents']));
    const names = summary.tools.map((t: any) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['search_contacts', 'create_task', 'get_workspace_summary']),
    );
    const search = summary.tools.find((t: any) => t.name === 'search_contacts');
    expect(search).toEqual({
      name: 'search_contacts',
      kind: 'read',
      description: 'Lists contacts, newest first; query matches name, email, company name and notes.',
    });
    expect(summary.record_counts.contacts.total).toBe(1);
    expect(summary.open_work.tasks.open).toBe(1);
    expect(summary.open_work.support_tickets).toEqual({ open: 0, by_status: {} });
    expect(summary.open_work.deals_by_stage).toEqual([
      { stage_key: 'new', currency: 'EUR', count: 1, amount_cents: 1000 },
      { stage_key: 'proposal', currency: 'USD', count: 2, amount_cents: 70_000 },
    ]);
    expect(summary.recent_activity.map((a: any) => a.summary)).toEqual(['Called Ada about the renewal']);
    expect(summary.omitted).toEqual([]);
    const theirs = await summaryOf(other.apiKey);
    expect(theirs.record_counts.contacts.total).toBe(3);
    expect(theirs.open_work.deals_by_stage).toEqual([
      { stage_key: 'proposal', currency: 'USD', count: 1, amount_cents: 9 },
    ]);
  });

  it('leaves out what the scopes do not allow, saying which scope is needed', async () => {
    const key = await h.createCredential(ws.id, 'mcp_token', ['data_agents:read', 'tasks:read']);
    const called = await h.callTool(key.token, 'get_workspace_assistant_summary', {});
    expect(called.result.isError).toBeFalsy();
    const summary = called.body.summary;
    expect(summary.open_work.deals_by_stage).toBeNull();
    expect(summary.record_counts.contacts).toBeUndefined();
    expect(summary.record_counts.tasks.total).toBe(1);
    expect(summary.recent_activity).toBeNull();
    expect(summary.omitted).toEqual(
      expect.arrayContaining([
        { section: 'open_work.deals_by_stage', needs: 'crm:read' },
        { section: 'recent_activity', needs: 'activity:read' },
      ]),
    );
    const names = summary.tools.map((t: any) => t.name);
    expect(names).toContain('list_tasks');
    expect(names).not.toContain('search_contacts');
    expect(names).not.toContain('create_task');
  });

  it('lists recent Agent Grid runs and needs data_agents:read', async () => {
    await h.request('POST', '/v1/assistants/workspace/runs', {
      token: ws.apiKey,
      body: { instruction: 'list my tasks' },
    });
    const summary = await summaryOf(ws.apiKey);
    expect(summary.recent_agent_runs[0].metadata).toEqual({ source: 'workspace_assistant', mode: 'plan' });
    expect((await summaryOf(other.apiKey)).recent_agent_runs).toEqual([]);
    const narrow = await h.createCredential(ws.id, 'api_key', ['crm:read']);
    const refused = await h.request('GET', '/v1/assistants/workspace/summary', { token: narrow.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('missing_required_scope');
  });
});
