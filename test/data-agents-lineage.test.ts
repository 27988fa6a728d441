// Lineage edges through the real server (issue 13 item 4): typed nodes checked to exist in the workspace,
// filters by node, relation and job, and walks upstream and downstream to a depth over a graph with a cycle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Lineage A');
  other = await h.workspace('Lineage B');
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const edge = async (from: object, relation: string, to: object, token = ws.apiKey) => {
  const res = await call('POST', '/v1/data-agents/lineage', { from, relation, to }, token);
  expect(res.status, res.text).toBe(201);
  return res.body.lineage_edge;
};
const walk = async (type: string, id: string, direction: string, depth?: number, extra = '') => {
  const res = await call(
    'GET',
    `/v1/data-agents/lineage?node_type=${type}&node_id=${id}&direction=${direction}${depth ? `&depth=${depth}` : ''}${extra}`,
  );
  expect(res.status, res.text).toBe(200);
  return res.body.lineage_edges as {
    id: string;
    from: { id: string };
    relation: string;
    to: { id: string };
  }[];
};
const job = async (title: string, token = ws.apiKey) =>
  (await call('POST', '/v1/data-agents/execution-jobs', { job_type: 'custom', title }, token)).body
    .execution_job;

describe(`lineage edges (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('walks upstream from an output to its sources and downstream back, through a cycle', async () => {
    // dataset crm_pipeline <-reads- snapshot job -produces-> contact "v" <-derived_from- contact "report"
    const snapshot = await job('snapshot');
    const version = (await call('POST', '/v1/contacts', { name: 'stand-in for a version' })).body.contact;
    const report = (await call('POST', '/v1/contacts', { name: 'stand-in for a report' })).body.contact;
    const reads = await edge({ type: 'execution_job', id: snapshot.id }, 'reads', {
      type: 'bi_dataset',
      id: 'crm_pipeline',
    });
    const produces = await edge({ type: 'execution_job', id: snapshot.id }, 'produces', {
      type: 'record:contact',
      id: version.id,
    });
    const derived = await edge({ type: 'record:contact', id: report.id }, 'derived_from', {
      type: 'record:contact',
      id: version.id,
    });
    expect(derived).toMatchObject({
      from: { type: 'record:contact', id: report.id },
      relation: 'derived_from',
      job_id: null,
    });

    const one = await walk('record:contact', report.id, 'upstream', 1);
    expect(one.map((e) => e.id)).toEqual([derived.id]);
    const all = await walk('record:contact', report.id, 'upstream', 5);
    expect(all.map((e) => e.id).sort()).toEqual([reads.id, produces.id, derived.id].sort());
    const down = await walk('bi_dataset', 'crm_pipeline', 'downstream');
    expect(down.map((e) => e.id).sort()).toEqual([reads.id, produces.id, derived.id].sort());
    const fromJob = await walk('execution_job', snapshot.id, 'downstream', 1);
    expect(fromJob.map((e) => e.id)).toEqual([produces.id]);
    const onlyReads = await walk('record:contact', report.id, 'upstream', 5, '&relation=derived_from');
    expect(onlyReads.map((e) => e.id)).toEqual([derived.id]);

    // A cycle (the dataset read back from the report) ends at the depth bound; each edge is listed once.
    const cycle = await edge({ type: 'bi_dataset', id: 'crm_pipeline' }, 'derived_from', {
      type: 'record:contact',
      id: report.id,
    });
    const around = await walk('record:contact', report.id, 'upstream', 5);
    expect(around.map((e) => e.id).sort()).toEqual([reads.id, produces.id, derived.id, cycle.id].sort());
    const paged = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=record:contact&node_id=${report.id}&direction=upstream&depth=5&limit=3`,
    );
    expect(paged.body.lineage_edges).toHaveLength(3);
    const rest = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=record:contact&node_id=${report.id}&direction=upstream&depth=5&limit=3&cursor=${paged.body.next_cursor}`,
    );
    expect([...paged.body.lineage_edges, ...rest.body.lineage_edges].map((e: any) => e.id).sort()).toEqual(
      around.map((e) => e.id).sort(),
    );

    // Plain filters: a node's edges at either end, a relation.
    const touching = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=record:contact&node_id=${version.id}`,
    );
    expect(touching.body.lineage_edges.map((e: any) => e.id).sort()).toEqual(
      [produces.id, derived.id].sort(),
    );
    const byRelation = await call('GET', '/v1/data-agents/lineage?relation=reads');
    expect(byRelation.body.lineage_edges.map((e: any) => e.id)).toEqual([reads.id]);
    // Recording the same edge again returns it unchanged.
    const again = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'execution_job', id: snapshot.id },
      relation: 'reads',
      to: { type: 'bi_dataset', id: 'crm_pipeline' },
    });
    expect(again.status).toBe(200);
    expect(again.body.lineage_edge.id).toBe(reads.id);
    expect((await call('GET', `/v1/data-agents/lineage/${reads.id}`)).body.lineage_edge.id).toBe(reads.id);
  });

  it('refuses nodes that do not exist here, unknown types and malformed walks', async () => {
    const mine = await job('mine');
    const theirs = await job('theirs', other.apiKey);
    const theirContact = (await call('POST', '/v1/contacts', { name: 'B' }, other.apiKey)).body.contact;
    const crossJob = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'execution_job', id: mine.id },
      relation: 'reads',
      to: { type: 'execution_job', id: theirs.id },
    });
    expect(crossJob.status).toBe(404);
    expect(crossJob.body.error.code).toBe('resource_not_found');
    const crossRecord = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'record:contact', id: theirContact.id },
      relation: 'cites',
      to: { type: 'execution_job', id: mine.id },
    });
    expect(crossRecord.status).toBe(404);
    const unknownType = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'record:spaceship', id: 'x' },
      relation: 'reads',
      to: { type: 'execution_job', id: mine.id },
    });
    expect(unknownType.status).toBe(400);
    expect(unknownType.body.error.field_errors[0].field).toBe('from.type');
    const badType = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'spaceship', id: 'x' },
      relation: 'reads',
      to: { type: 'execution_job', id: mine.id },
    });
    expect(badType.body.error.field_errors[0].field).toBe('from.type');
    const noDataset = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'execution_job', id: mine.id },
      relation: 'reads',
      to: { type: 'bi_dataset', id: 'no_such_dataset' },
    });
    expect(noDataset.status).toBe(400);
    expect(noDataset.body.error.field_errors[0].field).toBe('to.id');
    const selfLoop = await call('POST', '/v1/data-agents/lineage', {
      from: { type: 'execution_job', id: mine.id },
      relation: 'reads',
      to: { type: 'execution_job', id: mine.id },
    });
    expect(selfLoop.body.error.field_errors[0].field).toBe('to');
    const noNode = await call('GET', '/v1/data-agents/lineage?direction=upstream');
    expect(noNode.body.error.field_errors[0].field).toBe('node_type');
    const deep = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=execution_job&node_id=${mine.id}&direction=upstream&depth=6`,
    );
    expect(deep.body.error.field_errors[0].field).toBe('depth');
    const half = await call('GET', `/v1/data-agents/lineage?node_id=${mine.id}`);
    expect(half.body.error.field_errors[0].field).toBe('node_type');
  });

  it("keeps one workspace's edges out of another's lists, walks and lookups", async () => {
    const mine = await job('isolated');
    const contact = (await call('POST', '/v1/contacts', { name: 'Isolated' })).body.contact;
    const own = await edge({ type: 'execution_job', id: mine.id }, 'produces', {
      type: 'record:contact',
      id: contact.id,
    });
    const b = other.apiKey;
    expect((await call('GET', `/v1/data-agents/lineage/${own.id}`, undefined, b)).status).toBe(404);
    const listed = await call('GET', '/v1/data-agents/lineage', undefined, b);
    expect(listed.body.lineage_edges.map((e: any) => e.id)).not.toContain(own.id);
    const walked = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=execution_job&node_id=${mine.id}&direction=downstream&depth=5`,
      undefined,
      b,
    );
    expect(walked.body.lineage_edges).toEqual([]);
    const record = await h.callTool(other.mcpToken, 'get_record', {
      type: 'data_agent_lineage_edge',
      id: own.id,
    });
    expect(record.body.error.code).toBe('resource_not_found');
  });
});
