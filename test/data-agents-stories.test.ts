// Whole Data Agents stories through the real server with the worker on (issue 13 "Done when"): propose a
// dataset, approve the decision, snapshot it on the native plane, run a bi_query job whose numbers equal
// run_bi_query's for the same definition, draft an insight and walk lineage upstream from it to the
// template, build the content performance knowledgebase (idempotent, lineage artifact -> version ->
// template); and none of it reachable from another workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JobsFixture, jobCalls, startJobsFixture } from './helpers/data-agents-jobs.ts';
import { type Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let f: JobsFixture;
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
const { call, tool, createJob, dispatch, details, jobWhen } = jobCalls(() => f);

const walk = async (type: string, id: string, depth: number, token = ws.apiKey) =>
  call(
    'GET',
    `/v1/data-agents/lineage?node_type=${type}&node_id=${id}&direction=upstream&depth=${depth}`,
    undefined,
    token,
  );
const nodes = (edges: any[]) =>
  edges.flatMap((e) => [`${e.from.type}:${e.from.id}`, `${e.to.type}:${e.to.id}`]);

const DEFINITION = {
  dataset_key: 'content_performance',
  dimensions: ['channel'],
  measures: [
    { aggregate: 'count', as: 'items' },
    { column: 'published', aggregate: 'sum', as: 'published_count' },
  ],
  sort: [{ column: 'items', direction: 'desc' }],
};

beforeAll(async () => {
  f = await startJobsFixture();
  ({ h, ws, other } = f);
  const campaign = await call('POST', '/v1/marketing/campaigns', {
    name: 'Launch',
    channel: 'email',
    status: 'active',
    budget_cents: 120_000,
    currency: 'EUR',
  });
  expect(campaign.status).toBe(201);
  for (const [title, channel, status] of [
    ['Teaser', 'email', 'published'],
    ['Reminder', 'email', 'published'],
    ['Recap', 'social', 'draft'],
    ['Thread', 'social', 'published'],
    ['Banner', 'ads', 'draft'],
  ] as const) {
    expect((await call('POST', '/v1/marketing/posts', { title, channel, status })).status).toBe(201);
  }
});
afterAll(() => h.close());

describe(`Data Agents stories (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let proposed: any;
  let insightId: string;
  let biJobId: string;

  it('proposes a dataset (version, manifest, lineage, decision) and approves it through the decision', async () => {
    const source = await call('POST', '/v1/data-agents/source-objects', {
      kind: 'bi_dataset',
      name: 'Content performance',
      dataset_key: 'content_performance',
    });
    const res = await tool('propose_data_agent_dataset', {
      dataset_key: 'content_performance',
      description: 'Content items by type and status for the weekly review.',
      tags: ['content'],
      freshness: { max_age_hours: 168 },
      column_docs: [{ column: 'items', description: 'Items counted.' }],
      idempotency_key: 'propose-content-1',
    });
    expect(res.result.isError).toBeFalsy();
    proposed = res.body;
    expect(proposed.dataset_version).toMatchObject({
      dataset_key: 'content_performance',
      version: 1,
      status: 'proposed',
    });
    expect(proposed.manifest).toMatchObject({
      version_id: proposed.dataset_version.id,
      description: 'Content items by type and status for the weekly review.',
      source_object_ids: [source.body.source_object.id],
      tags: ['content'],
    });
    expect(proposed.manifest.owner).toBeTruthy();
    expect(proposed.decision).toMatchObject({
      status: 'proposed',
      chosen_option: 'approve',
      subject: { type: 'data_agent_dataset_version', id: proposed.dataset_version.id },
    });
    expect(proposed.lineage_edges.map((e: any) => [e.relation, e.to.type])).toEqual([
      ['derived_from', 'bi_dataset'],
      ['reads', 'source_object'],
    ]);
    // MCP-only: no REST route; the replay of the same key is the same proposal.
    const tools: any[] = [];
    let cursor: string | undefined;
    do {
      const page = await h.mcp(ws.mcpToken, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: cursor ? { cursor } : {},
      });
      tools.push(...page.body.result.tools);
      cursor = page.body.result.nextCursor;
    } while (cursor);
    for (const name of ['propose_data_agent_dataset', 'create_content_performance_knowledgebase']) {
      expect(tools.find((t) => t.name === name)._meta.rest).toBeNull();
    }
    const replay = await tool('propose_data_agent_dataset', {
      dataset_key: 'content_performance',
      description: 'Content items by type and status for the weekly review.',
      tags: ['content'],
      freshness: { max_age_hours: 168 },
      column_docs: [{ column: 'items', description: 'Items counted.' }],
      idempotency_key: 'propose-content-1',
    });
    expect(replay.body.dataset_version.id).toBe(proposed.dataset_version.id);
    expect(replay.body.decision.id).toBe(proposed.decision.id);

    const approved = await tool('approve_data_agent_decision', {
      decision_id: proposed.decision.id,
      note: 'Reviewed in the data council.',
    });
    expect(approved.body.decision.status).toBe('approved');
    const version = await call('GET', `/v1/data-agents/dataset-versions/${proposed.dataset_version.id}`);
    expect(version.body.dataset_version).toMatchObject({
      status: 'approved',
      decision_id: proposed.decision.id,
    });
  });

  it('snapshots the dataset again on the native plane: the next version, produced by the job', async () => {
    const job = await createJob({
      job_type: 'dataset_snapshot',
      title: 'Weekly snapshot',
      input: { dataset_key: 'content_performance', description: 'Monday snapshot' },
    });
    await dispatch(job.id);
    const done = await jobWhen(job.id, (j) => j.status === 'completed');
    const versionId = done.output.produced[0].id;
    expect(done.output.produced).toEqual([{ type: 'dataset_version', id: versionId }]);
    const version = (await call('GET', `/v1/data-agents/dataset-versions/${versionId}`)).body.dataset_version;
    expect(version).toMatchObject({
      version: 2,
      status: 'proposed',
      job_id: job.id,
      description: 'Monday snapshot',
      // Same data, same definition: the same content.
      checksum: proposed.dataset_version.checksum,
      row_count: proposed.dataset_version.row_count,
    });
    expect(done.output.data).toMatchObject({ dataset_version_id: versionId, version: 2 });
    const shown = await details(job.id);
    expect(nodes(shown.lineage_edges)).toEqual(
      expect.arrayContaining([`dataset_version:${versionId}`, 'bi_dataset:content_performance']),
    );
  });

  it("runs a bi_query job whose numbers equal run_bi_query's for the same definition", async () => {
    const job = await createJob({
      job_type: 'bi_query',
      title: 'Items by channel',
      input: { query: DEFINITION },
    });
    biJobId = job.id;
    await dispatch(job.id);
    const done = await jobWhen(job.id, (j) => j.status === 'completed');
    const bi = await call('POST', '/v1/bi/queries/run', DEFINITION);
    expect(bi.status).toBe(200);
    expect(done.output.data.rows).toEqual(bi.body.result.rows);
    expect(done.output.data).toMatchObject({
      columns: bi.body.result.columns,
      row_count: bi.body.result.row_count,
      truncated: false,
      rows_included: bi.body.result.row_count,
    });
    expect(bi.body.result.rows).toEqual([
      { channel: 'email', items: 3, published_count: 2 },
      { channel: 'social', items: 2, published_count: 1 },
      { channel: 'ads', items: 1, published_count: 0 },
    ]);
    // The job saved its query with a BI run, and reads the template.
    const saved = await call('GET', `/v1/bi/queries/${done.output.data.query_id}`);
    expect(saved.body.query).toMatchObject({
      dataset_key: 'content_performance',
      last_run_id: done.output.data.bi_run_id,
    });
    expect(done.output.reads).toEqual([{ type: 'bi_dataset', id: 'content_performance' }]);
  });

  it("runs the query with the dispatcher's scopes: without bi:write the bi_query job fails, saving nothing", async () => {
    const scopes = ['data_agents:read', 'data_agents:write', 'data_agents:execute'];
    const dataOnly = (await h.createCredential(ws.id, 'mcp_token', scopes)).token;
    const before = (await call('GET', '/v1/bi/queries?dataset_key=content_performance&limit=100')).body
      .queries;
    const job = await createJob({ job_type: 'bi_query', input: { query: DEFINITION } });
    await dispatch(job.id, dataOnly);
    const failed = await jobWhen(job.id, (j) => j.status === 'failed');
    expect(failed.error.code).toBe('missing_required_scope');
    const after = (await call('GET', '/v1/bi/queries?dataset_key=content_performance&limit=100')).body
      .queries;
    expect(after).toHaveLength(before.length);
  });

  it('drafts an insight from the numbers and walks lineage upstream from it to the template', async () => {
    const job = await createJob({
      job_type: 'insight_generation',
      input: { query: DEFINITION, title: 'Content by channel' },
    });
    await dispatch(job.id);
    const done = await jobWhen(job.id, (j) => j.status === 'completed');
    insightId = done.output.data.insight_id;
    const insight = (await call('GET', `/v1/data-agents/insights/${insightId}`)).body.insight;
    expect(insight).toMatchObject({ title: 'Content by channel', status: 'draft' });
    const source = { type: 'bi_query', id: done.output.data.query_id };
    expect(insight.figures).toEqual(
      expect.arrayContaining([
        { label: 'items: email', value: 3, unit: 'count', source },
        { label: 'items: total', value: 6, unit: 'count', source },
        { label: 'published_count: total', value: 3, unit: null, source },
      ]),
    );
    expect(insight.summary).toBe(
      '3 rows of content_performance by channel. items is highest for email (3) and lowest for ads (1). items totals 6. published_count is highest for email (2) and lowest for ads (0). published_count totals 3.',
    );
    const up = await walk('insight', insightId, 3);
    expect(up.status).toBe(200);
    expect(nodes(up.body.lineage_edges)).toEqual(
      expect.arrayContaining([`execution_job:${job.id}`, 'bi_dataset:content_performance']),
    );
  });

  it('builds the content performance knowledgebase once per key, with the figures and lineage to the template', async () => {
    const args = { title: 'Content performance', idempotency_key: 'kb-1' };
    const res = await tool('create_content_performance_knowledgebase', args);
    expect(res.result.isError).toBeFalsy();
    const { knowledge_artifact: artifact, dataset_version: version } = res.body;
    expect(artifact).toMatchObject({ kind: 'summary', status: 'draft', title: 'Content performance' });
    expect(artifact.source_refs).toEqual([{ type: 'data_agent_dataset_version', id: version.id }]);
    expect(version).toMatchObject({ dataset_key: 'content_performance', version: 3, status: 'proposed' });
    expect(artifact.content).toContain('**6** in all, **3** published');
    expect(artifact.content).toContain('## By status');
    expect(artifact.content).toContain('## By channel');
    expect(artifact.content).toContain('## By content type');
    expect(artifact.content).toContain('## Campaign budgets');
    expect(artifact.content).toContain('| email | 3 | 2 |');
    expect(artifact.content).toContain('| published | 3 | 3 |');
    expect(artifact.content).toContain('| marketing_post | 5 | 3 |');
    expect(artifact.content).toContain('| marketing_campaign | 1 | 0 |');
    expect(artifact.content).toContain('| email | EUR | 1 | 120000 |');
    const again = await tool('create_content_performance_knowledgebase', args);
    expect(again.body.knowledge_artifact.id).toBe(artifact.id);
    const versions = await call('GET', '/v1/data-agents/dataset-versions?dataset_key=content_performance');
    expect(versions.body.dataset_versions).toHaveLength(3);
    const up = await walk('knowledge_artifact', artifact.id, 2);
    expect(nodes(up.body.lineage_edges)).toEqual(
      expect.arrayContaining([`dataset_version:${version.id}`, 'bi_dataset:content_performance']),
    );
    // Both scopes are needed.
    const dataOnly = (await h.createCredential(ws.id, 'mcp_token', ['data_agents:write'])).token;
    const refused = await tool('create_content_performance_knowledgebase', { title: 'x' }, dataOnly);
    expect(refused.result.isError).toBe(true);
    expect(refused.body.error.code).toBe('missing_required_scope');
  });

  it('keeps versions, decisions, jobs and lineage out of another workspace', async () => {
    const version = await call(
      'GET',
      `/v1/data-agents/dataset-versions/${proposed.dataset_version.id}`,
      undefined,
      other.apiKey,
    );
    expect(version.status).toBe(404);
    const approve = await tool(
      'approve_data_agent_decision',
      { decision_id: proposed.decision.id },
      other.mcpToken,
    );
    expect(approve.body.error.code).toBe('resource_not_found');
    const job = await call('GET', `/v1/data-agents/execution-jobs/${biJobId}`, undefined, other.apiKey);
    expect(job.status).toBe(404);
    const up = await walk('insight', insightId, 3, other.apiKey);
    expect(up.body.lineage_edges ?? []).toEqual([]);
    const snapshotOfMine = await call(
      'POST',
      '/v1/data-agents/execution-jobs',
      { job_type: 'bi_query', input: { query: { dataset_key: 'content_performance' } } },
      other.apiKey,
    );
    expect(snapshotOfMine.status).toBe(201);
    const versions = await call('GET', '/v1/data-agents/dataset-versions', undefined, other.apiKey);
    expect(versions.body.dataset_versions).toEqual([]);
  });
});
