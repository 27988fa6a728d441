// Dataset versions and manifests through the real server (issue 13 item 2): a snapshot of a governed BI
// dataset numbered per key (race-safe), with the checksum of the rows run_bi_query returns for the same
// definition; manifests validated against the version and its source objects; a decision about a version
// approves it (and deprecates the earlier approved one); no record of one workspace reachable from another.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical-json.ts';
import { Harness, type TestWorkspace, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const tool = (name: string, args: unknown, token = ws.mcpToken) => h.callTool(token, name, args);

/** The checksum the service documents: each row's canonical JSON, sorted, as one JSON array. */
const checksumOf = (rows: unknown[]) =>
  createHash('sha256')
    .update(`[${rows.map(canonicalJson).sort().join(',')}]`)
    .digest('hex');

async function seedContent(token: string) {
  const campaign = await call(
    'POST',
    '/v1/marketing/campaigns',
    { name: 'Launch', channel: 'email', status: 'active', budget_cents: 50_000, currency: 'USD' },
    token,
  );
  expect(campaign.status).toBe(201);
  for (const [title, channel, status] of [
    ['Teaser', 'email', 'published'],
    ['Recap', 'social', 'draft'],
    ['Thread', 'social', 'published'],
  ] as const) {
    const post = await call('POST', '/v1/marketing/posts', { title, channel, status }, token);
    expect(post.status).toBe(201);
  }
}

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace('Versions A');
  other = await h.workspace('Versions B');
  await seedContent(ws.apiKey);
});
afterAll(() => h.close());

describe(`dataset versions and manifests (${usingPostgres ? 'PostgreSQL' : 'SQLite'})`, () => {
  let first: any;

  it('snapshots a template as version 1 with the checksum of the rows run_bi_query returns', async () => {
    const query = {
      dataset_key: 'content_performance',
      dimensions: ['content_type', 'status', 'channel'],
      measures: [{ aggregate: 'count', as: 'items' }],
    };
    const res = await call('POST', '/v1/data-agents/dataset-versions', {
      dataset_key: 'content_performance',
      description: 'Content by type, status and channel',
      query,
    });
    expect(res.status).toBe(201);
    first = res.body.dataset_version;
    expect(first).toMatchObject({
      dataset_key: 'content_performance',
      version: 1,
      template_key: 'content_performance',
      dataset_id: null,
      status: 'proposed',
      job_id: null,
    });
    expect(first.columns.map((c: any) => c.name)).toEqual(['content_type', 'status', 'channel', 'items']);
    expect(first.query).toMatchObject(query);
    const bi = await call('POST', '/v1/bi/queries/run', { ...query, limit: 1000 });
    expect(bi.status).toBe(200);
    expect(first.row_count).toBe(bi.body.result.row_count);
    expect(first.row_count).toBe(4); // the campaign, the published email post, the draft and published social posts
    expect(first.checksum).toBe(checksumOf(bi.body.result.rows));

    // The default query, its REST lookup and get_record; the version's lineage.
    const second = await call('POST', '/v1/data-agents/dataset-versions', {
      dataset_key: 'content_performance',
    });
    expect(second.body.dataset_version).toMatchObject({ version: 2, description: null });
    expect(second.body.dataset_version.query).toMatchObject({ dimensions: ['content_type', 'status'] });
    const got = await call('GET', `/v1/data-agents/dataset-versions/${first.id}`);
    expect(got.body.dataset_version).toEqual(first);
    const record = await tool('get_record', { type: 'data_agent_dataset_version', id: first.id });
    expect(JSON.stringify(record.body)).toContain(first.checksum);
    const edges = await call('GET', `/v1/data-agents/lineage?node_type=dataset_version&node_id=${first.id}`);
    expect(edges.status).toBe(200);
    expect(edges.body.lineage_edges).toEqual([
      expect.objectContaining({
        from: { type: 'dataset_version', id: first.id },
        relation: 'derived_from',
        to: { type: 'bi_dataset', id: 'content_performance' },
      }),
    ]);
  });

  it('numbers concurrent snapshots of one key 1, 2, 3, ... without a gap or a repeat', async () => {
    const made = await Promise.all(
      [1, 2, 3, 4].map(() =>
        call('POST', '/v1/data-agents/dataset-versions', { dataset_key: 'crm_pipeline' }),
      ),
    );
    expect(made.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(made.map((r) => r.body.dataset_version.version).sort()).toEqual([1, 2, 3, 4]);
    const listed = await call('GET', '/v1/data-agents/dataset-versions?dataset_key=crm_pipeline&limit=3');
    expect(listed.body.dataset_versions.map((v: any) => v.version)).toEqual([4, 3, 2]);
    expect(listed.body.next_cursor).toBeTruthy();
    const rest = await call(
      'GET',
      `/v1/data-agents/dataset-versions?dataset_key=crm_pipeline&limit=3&cursor=${listed.body.next_cursor}`,
    );
    expect(rest.body.dataset_versions.map((v: any) => v.version)).toEqual([1]);
  });

  it('refuses bad input with validation_failed naming the field, and writes nothing', async () => {
    const bad = async (body: unknown, field: string) => {
      const res = await call('POST', '/v1/data-agents/dataset-versions', body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.field_errors[0].field).toBe(field);
    };
    await bad({ dataset_key: 'no_such_dataset' }, 'query.dataset_key');
    await bad(
      { dataset_key: 'content_performance', query: { dataset_key: 'crm_pipeline' } },
      'query.dataset_key',
    );
    await bad(
      {
        dataset_key: 'content_performance',
        query: { dataset_key: 'content_performance', dimensions: ['nope'] },
      },
      'dimensions[0]',
    );
    await bad({ dataset_key: 'content_performance', extra: true }, 'extra');
    const all = await call('GET', '/v1/data-agents/dataset-versions?dataset_key=content_performance');
    expect(all.body.dataset_versions).toHaveLength(2);
  });

  it('writes one manifest per version, its columns and source objects checked, with lineage', async () => {
    const source = await call('POST', '/v1/data-agents/source-objects', {
      kind: 'bi_dataset',
      name: 'Content performance template',
      dataset_key: 'content_performance',
    });
    const foreign = await call(
      'POST',
      '/v1/data-agents/source-objects',
      { kind: 'external_uri', name: 'Elsewhere', uri: 's3://bucket/x' },
      other.apiKey,
    );
    const body = {
      version_id: first.id,
      owner: 'content analytics',
      description: 'Content items by type, status and channel.',
      tags: ['content', 'weekly'],
      freshness: { max_age_hours: 168, note: 'Snapshotted every Monday.' },
      column_docs: [{ column: 'items', description: 'Entries, posts and campaigns counted.' }],
      source_object_ids: [source.body.source_object.id],
    };
    const unknownColumn = await call('POST', '/v1/data-agents/manifests', {
      ...body,
      column_docs: [{ column: 'budget', description: 'x' }],
    });
    expect(unknownColumn.status).toBe(400);
    expect(unknownColumn.body.error.field_errors[0].field).toBe('column_docs[0].column');
    const foreignSource = await call('POST', '/v1/data-agents/manifests', {
      ...body,
      source_object_ids: [foreign.body.source_object.id],
    });
    expect(foreignSource.status).toBe(404);
    expect(foreignSource.body.error.code).toBe('resource_not_found');

    const made = await call('POST', '/v1/data-agents/manifests', body);
    expect(made.status).toBe(201);
    expect(made.body.manifest).toMatchObject({ ...body, dataset_key: 'content_performance' });
    const twice = await call('POST', '/v1/data-agents/manifests', body);
    expect(twice.status).toBe(409);
    expect(twice.body.error.code).toBe('conflict');
    const listed = await call('GET', `/v1/data-agents/manifests?version_id=${first.id}`);
    expect(listed.body.manifests).toEqual([made.body.manifest]);
    const lookup = await call('GET', `/v1/data-agents/manifests/${made.body.manifest.id}`);
    expect(lookup.body.manifest).toEqual(made.body.manifest);
    const foreignLookup = await call(
      'GET',
      `/v1/data-agents/manifests/${made.body.manifest.id}`,
      undefined,
      other.apiKey,
    );
    expect(foreignLookup.status).toBe(404);
    const reads = await call(
      'GET',
      `/v1/data-agents/lineage?node_type=source_object&node_id=${source.body.source_object.id}`,
    );
    expect(reads.body.lineage_edges).toEqual([
      expect.objectContaining({ from: { type: 'dataset_version', id: first.id }, relation: 'reads' }),
    ]);
  });

  it('approves a version through a decision about it and deprecates the earlier approved one', async () => {
    const decide = async (versionId: string) => {
      const created = await call('POST', '/v1/data-agents/decisions', {
        title: 'Approve',
        context: 'Weekly review',
        options: [{ key: 'approve', description: 'Approve it' }],
        chosen_option: 'approve',
        subject: { type: 'data_agent_dataset_version', id: versionId },
      });
      expect(created.status).toBe(201);
      const approved = await tool('approve_data_agent_decision', { decision_id: created.body.decision.id });
      return { decision: created.body.decision, approved };
    };
    const { decision, approved } = await decide(first.id);
    expect(approved.result.isError).toBeFalsy();
    const v1 = (await call('GET', `/v1/data-agents/dataset-versions/${first.id}`)).body.dataset_version;
    expect(v1).toMatchObject({ status: 'approved', decision_id: decision.id });
    expect(v1.approved_at).toBeTruthy();

    const v2 = (await call('GET', '/v1/data-agents/dataset-versions?dataset_key=content_performance&limit=1'))
      .body.dataset_versions[0];
    expect(v2.version).toBe(2);
    await decide(v2.id);
    const after = (await call('GET', '/v1/data-agents/dataset-versions?dataset_key=content_performance')).body
      .dataset_versions;
    expect(after.map((v: any) => [v.version, v.status])).toEqual([
      [2, 'approved'],
      [1, 'deprecated'],
    ]);
    // An approved version cannot be approved again: the decision's approval is refused with the status and
    // the decision stays proposed.
    const again = await decide(v2.id);
    expect(again.approved.body.error.code).toBe('conflict');
    expect(again.approved.body.error.message).toContain('is approved');
    const still = await call(
      'GET',
      `/v1/data-agents/decisions?subject_type=data_agent_dataset_version&subject_id=${v2.id}`,
    );
    expect(still.body.decisions.map((d: any) => d.status).sort()).toEqual(['approved', 'proposed']);
    const events = await h.db
      .selectFrom('outbox_events')
      .select('name')
      .where('workspace_id', '=', ws.id)
      .where('name', '=', 'data_agent_dataset_version.status_changed')
      .execute();
    expect(events).toHaveLength(3);
  });

  it("keeps every version and manifest out of another workspace's reach", async () => {
    const mine = await call('GET', `/v1/data-agents/dataset-versions/${first.id}`, undefined, other.apiKey);
    expect(mine.status).toBe(404);
    expect(mine.body.error.code).toBe('resource_not_found');
    const list = await call('GET', '/v1/data-agents/dataset-versions', undefined, other.apiKey);
    expect(list.body.dataset_versions).toEqual([]);
    const manifests = await call('GET', '/v1/data-agents/manifests', undefined, other.apiKey);
    expect(manifests.body.manifests).toEqual([]);
    const manifest = await call(
      'POST',
      '/v1/data-agents/manifests',
      { version_id: first.id, owner: 'x', description: 'x' },
      other.apiKey,
    );
    expect(manifest.status).toBe(404);
    const decision = await call(
      'POST',
      '/v1/data-agents/decisions',
      {
        title: 'Steal',
        context: 'x',
        options: [{ key: 'a', description: 'a' }],
        subject: { type: 'data_agent_dataset_version', id: first.id },
      },
      other.apiKey,
    );
    expect(decision.status).toBe(404);
  });
});
