// Data Agents decisions, insights, source objects and knowledge artifacts through the real server: state
// machines and their 409s, the approval effect by subject type, the outbox events, validation and isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fail } from '../src/core/errors.ts';
import {
  onDecisionApproved,
  removeDecisionApprovalEffect,
} from '../src/modules/data-agents/governed/decision-approval.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let contactId: string;
let otherContactId: string;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other workspace');
  contactId = (await post('/v1/contacts', { name: 'Dana Data' })).body.contact.id;
  otherContactId = (
    await h.request('POST', '/v1/contacts', { token: other.apiKey, body: { name: 'Elsewhere' } })
  ).body.contact.id;
});
afterAll(() => h.close());

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const tool = (name: string, args: unknown, token = ws.mcpToken) => h.callTool(token, name, args);
const fields = (response: { body: any }) =>
  (response.body.error?.field_errors ?? []).map((e: { field: string }) => e.field);
const outbox = (name: string, targetId: string) =>
  h.db
    .selectFrom('outbox_events')
    .selectAll()
    .where('workspace_id', '=', ws.id)
    .where('name', '=', name)
    .where('target_id', '=', targetId)
    .execute();

const decisionInput = (extra: Record<string, unknown> = {}) => ({
  title: 'Refresh cadence of the content dataset',
  context: 'The weekly content review needs a governed source.',
  options: [
    { key: 'daily', description: 'Refresh every day.' },
    { key: 'weekly', description: 'Refresh every Monday.' },
  ],
  chosen_option: 'weekly',
  rationale: 'Fresh enough for a weekly review.',
  ...extra,
});

describe('decisions', () => {
  it('are proposed with options, a chosen option and typed references that must exist', async () => {
    const badChoice = await post('/v1/data-agents/decisions', decisionInput({ chosen_option: 'hourly' }));
    expect(badChoice.status).toBe(400);
    expect(fields(badChoice)).toEqual(['chosen_option']);
    const repeated = await post(
      '/v1/data-agents/decisions',
      decisionInput({
        options: [
          { key: 'a', description: 'x' },
          { key: 'a', description: 'y' },
        ],
        chosen_option: 'a',
      }),
    );
    expect(fields(repeated)).toEqual(['options[1].key']);
    const unknownType = await post(
      '/v1/data-agents/decisions',
      decisionInput({ related_objects: [{ type: 'spaceship', id: 'x' }] }),
    );
    expect(unknownType.status).toBe(400);
    expect(fields(unknownType)).toEqual(['related_objects[0].type']);
    const foreign = await post(
      '/v1/data-agents/decisions',
      decisionInput({ related_objects: [{ type: 'contact', id: otherContactId }] }),
    );
    expect(foreign.status).toBe(404);
    const unknownField = await post('/v1/data-agents/decisions', decisionInput({ colour: 'red' }));
    expect(fields(unknownField)).toEqual(['colour']);

    const created = await post(
      '/v1/data-agents/decisions',
      decisionInput({
        subject: { type: 'contact', id: contactId },
        related_objects: [{ type: 'contact', id: contactId }],
        idempotency_key: 'decision-1',
      }),
    );
    expect(created.status).toBe(201);
    const decision = created.body.decision;
    expect(decision).toMatchObject({
      status: 'proposed',
      chosen_option: 'weekly',
      subject: { type: 'contact', id: contactId },
      related_objects: [{ type: 'contact', id: contactId }],
      supersedes_id: null,
      decided_at: null,
    });
    expect(decision.id).toMatch(/^dad_/);
    const replay = await post(
      '/v1/data-agents/decisions',
      decisionInput({
        subject: { type: 'contact', id: contactId },
        related_objects: [{ type: 'contact', id: contactId }],
        idempotency_key: 'decision-1',
      }),
    );
    expect(replay.status).toBe(200);
    expect(replay.body.decision.id).toBe(decision.id);
    expect(await outbox('data_agent_decision.created', decision.id)).toHaveLength(1);

    expect((await get(`/v1/data-agents/decisions/${decision.id}`)).body.decision).toEqual(decision);
    const viaRecord = await tool('get_record', { type: 'data_agent_decision', id: decision.id });
    expect(viaRecord.body.record).toEqual(decision);
    const bySubject = await get(`/v1/data-agents/decisions?subject_type=contact&subject_id=${contactId}`);
    expect(bySubject.body.decisions.map((d: any) => d.id)).toEqual([decision.id]);
    expect(fields(await get(`/v1/data-agents/decisions?subject_id=${contactId}`))).toEqual(['subject_type']);
  });

  it('are edited or rejected while proposed (write and execute scopes), then 409 naming the status', async () => {
    const id = (await post('/v1/data-agents/decisions', decisionInput())).body.decision.id;
    const writer = await h.createCredential(ws.id, 'api_key', ['data_agents:read', 'data_agents:write']);
    const noExecute = await patch(`/v1/data-agents/decisions/${id}`, { title: 'x' }, writer.token);
    expect(noExecute.status).toBe(403);
    expect(noExecute.body.error.required_scope).toBe('data_agents:execute');

    const edited = await patch(`/v1/data-agents/decisions/${id}`, {
      title: 'Edited',
      chosen_option: 'daily',
    });
    expect(edited.status).toBe(200);
    expect(edited.body.decision).toMatchObject({
      title: 'Edited',
      chosen_option: 'daily',
      status: 'proposed',
    });
    expect(await outbox('data_agent_decision.updated', id)).toHaveLength(1);
    const badOptions = await patch(`/v1/data-agents/decisions/${id}`, {
      options: [{ key: 'other', description: 'Drops the chosen one' }],
    });
    expect(fields(badOptions)).toEqual(['options']);

    const rejected = await patch(`/v1/data-agents/decisions/${id}`, {
      status: 'rejected',
      note: 'Too costly.',
    });
    expect(rejected.body.decision).toMatchObject({ status: 'rejected', decision_note: 'Too costly.' });
    expect(rejected.body.decision.decided_at).not.toBeNull();
    expect(await outbox('data_agent_decision.status_changed', id)).toHaveLength(1);

    const again = await patch(`/v1/data-agents/decisions/${id}`, { title: 'Later' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    expect(again.body.error.message).toContain('rejected');
    const approveRejected = await tool('approve_data_agent_decision', { decision_id: id });
    expect(approveRejected.result.isError).toBe(true);
    expect(approveRejected.body.error.code).toBe('conflict');
    expect(approveRejected.body.error.message).toContain('rejected');
  });

  it('are approved on MCP only, with a note; a later decision supersedes an approved one when approved', async () => {
    const first = (await post('/v1/data-agents/decisions', decisionInput())).body.decision.id;
    expect((await post(`/v1/data-agents/decisions/${first}/approve`, {})).status).toBe(404);
    const approved = await tool('approve_data_agent_decision', { decision_id: first, note: 'Agreed.' });
    expect(approved.body.decision).toMatchObject({ status: 'approved', decision_note: 'Agreed.' });
    const twice = await tool('approve_data_agent_decision', { decision_id: first });
    expect(twice.body.error.code).toBe('conflict');
    expect(twice.body.error.message).toContain('approved');

    const second = (await post('/v1/data-agents/decisions', decisionInput({ supersedes_id: first }))).body
      .decision;
    expect(second.supersedes_id).toBe(first);
    // Proposing the replacement changes nothing yet.
    expect((await get(`/v1/data-agents/decisions/${first}`)).body.decision.status).toBe('approved');
    await tool('approve_data_agent_decision', { decision_id: second.id });
    const earlier = (await get(`/v1/data-agents/decisions/${first}`)).body.decision;
    expect(earlier).toMatchObject({ status: 'superseded', superseded_by_id: second.id });
    expect(await outbox('data_agent_decision.status_changed', first)).toHaveLength(2);

    const third = await post('/v1/data-agents/decisions', decisionInput({ supersedes_id: first }));
    expect(third.status).toBe(409);
    expect(third.body.error.message).toContain('superseded');
    const superseded = await get('/v1/data-agents/decisions?status=superseded');
    expect(superseded.body.decisions.map((d: any) => d.id)).toEqual([first]);
  });

  it('apply the effect registered for their subject type in the approval transaction', async () => {
    const seen: string[] = [];
    onDecisionApproved('contact', async (ctx, subjectId, decision) => {
      if (decision.title === 'Refuse') throw fail('conflict', { message: 'The contact cannot be approved.' });
      seen.push(subjectId);
      ctx.audit({
        targetType: 'contact',
        targetId: subjectId,
        action: 'approve_by_decision',
        changedFields: [],
      });
    });
    try {
      const ok = (
        await post(
          '/v1/data-agents/decisions',
          decisionInput({ subject: { type: 'contact', id: contactId } }),
        )
      ).body.decision.id;
      expect((await tool('approve_data_agent_decision', { decision_id: ok })).body.decision.status).toBe(
        'approved',
      );
      expect(seen).toEqual([contactId]);

      const refused = (
        await post(
          '/v1/data-agents/decisions',
          decisionInput({ title: 'Refuse', subject: { type: 'contact', id: contactId } }),
        )
      ).body.decision.id;
      const answer = await tool('approve_data_agent_decision', { decision_id: refused });
      expect(answer.body.error.code).toBe('conflict');
      // The effect failed, so the approval rolled back with it.
      expect((await get(`/v1/data-agents/decisions/${refused}`)).body.decision.status).toBe('proposed');
    } finally {
      removeDecisionApprovalEffect('contact');
    }
  });

  it('are paginated by keyset', async () => {
    const page1 = await get('/v1/data-agents/decisions?limit=2');
    expect(page1.body.decisions).toHaveLength(2);
    const page2 = await get(`/v1/data-agents/decisions?limit=2&cursor=${page1.body.next_cursor}`);
    expect(page2.body.decisions[0].id < page1.body.decisions[1].id).toBe(true);
    const wrongFilter = await get(
      `/v1/data-agents/decisions?limit=2&status=approved&cursor=${page1.body.next_cursor}`,
    );
    expect(fields(wrongFilter)).toEqual(['cursor']);
  });
});

describe('source objects', () => {
  it('take the fields of their kind only; a workspace record must exist; a URI is only text', async () => {
    const missing = await post('/v1/data-agents/source-objects', {
      kind: 'app_event_stream',
      name: 'Clicks',
      app: 'web',
    });
    expect(fields(missing)).toEqual(['object_type']);
    const stray = await post('/v1/data-agents/source-objects', {
      kind: 'bi_dataset',
      name: 'Content',
      dataset_key: 'content_performance',
      uri: 'https://example.com',
    });
    expect(fields(stray)).toEqual(['uri']);
    const foreign = await post('/v1/data-agents/source-objects', {
      kind: 'workspace_record',
      name: 'Someone',
      record: { type: 'contact', id: otherContactId },
    });
    expect(foreign.status).toBe(404);

    const record = await post('/v1/data-agents/source-objects', {
      kind: 'workspace_record',
      name: 'Dana',
      record: { type: 'contact', id: contactId },
      owner: 'sales-ops',
    });
    expect(record.status).toBe(201);
    expect(record.body.source_object).toMatchObject({
      kind: 'workspace_record',
      record: { type: 'contact', id: contactId },
    });
    const uri = await tool('create_data_agent_source_object', {
      kind: 'external_uri',
      name: 'Warehouse export',
      uri: 'http://127.0.0.1:1/never-fetched',
      description: 'Nightly export.',
    });
    expect(uri.body.source_object).toMatchObject({
      uri: 'http://127.0.0.1:1/never-fetched',
      dataset_key: null,
    });
    const dataset = await post('/v1/data-agents/source-objects', {
      kind: 'bi_dataset',
      name: 'Content',
      dataset_key: 'content_performance',
    });
    const byKey = await get('/v1/data-agents/source-objects?dataset_key=content_performance');
    expect(byKey.body.source_objects.map((s: any) => s.id)).toEqual([dataset.body.source_object.id]);
    const byKind = await get('/v1/data-agents/source-objects?kind=external_uri');
    expect(byKind.body.source_objects.map((s: any) => s.id)).toEqual([uri.body.source_object.id]);
    expect(await outbox('data_agent_source_object.created', dataset.body.source_object.id)).toHaveLength(1);
  });
});

describe('insights', () => {
  it('state figures with their sources, and publish on MCP through the outbox once', async () => {
    const source = (
      await post('/v1/data-agents/source-objects', {
        kind: 'bi_dataset',
        name: 'Posts',
        dataset_key: 'posts',
      })
    ).body.source_object.id;
    const noSource = await post('/v1/data-agents/insights', {
      title: 'T',
      summary: 'S',
      figures: [
        { label: 'Posts', value: 3, source: { type: 'data_agent_source_object', id: 'dso_missing' } },
      ],
    });
    expect(noSource.status).toBe(404);
    const badFigure = await post('/v1/data-agents/insights', {
      title: 'T',
      summary: 'S',
      figures: [{ label: 'Posts', value: 'three', source: { type: 'data_agent_source_object', id: source } }],
    });
    expect(fields(badFigure)).toEqual(['figures[0].value']);

    const created = await post('/v1/data-agents/insights', {
      title: 'Video outperforms text',
      summary: 'Video posts drew **twice** the engagement.',
      figures: [
        {
          label: 'Video posts',
          value: 42,
          unit: 'posts',
          source: { type: 'data_agent_source_object', id: source },
        },
      ],
    });
    expect(created.status).toBe(201);
    const insight = created.body.insight;
    expect(insight).toMatchObject({ status: 'draft', published_at: null });
    expect(insight.figures).toEqual([
      {
        label: 'Video posts',
        value: 42,
        unit: 'posts',
        source: { type: 'data_agent_source_object', id: source },
      },
    ]);
    expect((await post(`/v1/data-agents/insights/${insight.id}/publish`, {})).status).toBe(404);

    const published = await tool('publish_data_agent_insight', { insight_id: insight.id });
    expect(published.body.insight).toMatchObject({ status: 'published', published_at: expect.any(String) });
    const events = await outbox('data_agent.insight_published', insight.id);
    expect(events).toHaveLength(1);
    expect(JSON.parse(events[0]!.payload)).toMatchObject({ id: insight.id, status: 'published' });
    const again = await tool('publish_data_agent_insight', { insight_id: insight.id });
    expect(again.body.error.code).toBe('conflict');
    expect(again.body.error.message).toContain('published');
    expect(await outbox('data_agent.insight_published', insight.id)).toHaveLength(1);

    // Declared with its schema: webhooks and notification rules can subscribe to it.
    const catalogue = await get('/v1/integrations/events?query=insight_published');
    const declared = catalogue.body.event_types.find((t: any) => t.key === 'data_agent.insight_published');
    expect(declared).toMatchObject({ source: 'builtin' });
    const drafts = await get('/v1/data-agents/insights?status=draft');
    expect(drafts.body.insights.map((i: any) => i.id)).not.toContain(insight.id);

    // archive_data_agent_insight (extension): published -> archived, kept readable; again: unchanged.
    const archived = await h.request('DELETE', `/v1/data-agents/insights/${insight.id}`, {
      token: ws.apiKey,
    });
    expect(archived.body.insight).toMatchObject({ status: 'archived', archived_at: expect.any(String) });
    const twice = await tool('archive_data_agent_insight', { insight_id: insight.id });
    expect(twice.body.insight).toEqual(archived.body.insight);
    expect(await outbox('data_agent_insight.status_changed', insight.id)).toHaveLength(2);
    const republish = await tool('publish_data_agent_insight', { insight_id: insight.id });
    expect(republish.body.error.message).toContain('archived');
    const listed = await get('/v1/data-agents/insights?status=archived');
    expect(listed.body.insights.map((i: any) => i.id)).toEqual([insight.id]);
  });
});

describe('knowledge artifacts', () => {
  it('hold at most 256 KiB of Markdown with checked source references', async () => {
    const big = await post('/v1/data-agents/knowledge-artifacts', {
      title: 'Too big',
      kind: 'document',
      content: 'x'.repeat(256 * 1024 + 1),
    });
    expect(big.status).toBe(400);
    expect(fields(big)).toEqual(['content']);
    const badKind = await post('/v1/data-agents/knowledge-artifacts', {
      title: 'T',
      kind: 'poem',
      content: 'x',
    });
    expect(fields(badKind)).toEqual(['kind']);

    const exact = await post('/v1/data-agents/knowledge-artifacts', {
      title: 'Glossary',
      kind: 'glossary',
      content: `# Terms\n\n${'y'.repeat(256 * 1024 - 9)}`,
      source_refs: [{ type: 'contact', id: contactId }],
      status: 'published',
    });
    expect(exact.status).toBe(201);
    expect(exact.body.knowledge_artifact).toMatchObject({ kind: 'glossary', status: 'published' });
    const faq = await tool('create_data_agent_knowledge_artifact', {
      title: 'FAQ',
      kind: 'faq',
      content: '## Q\nA',
    });
    expect(faq.body.knowledge_artifact.status).toBe('draft');
    const glossaries = await get('/v1/data-agents/knowledge-artifacts?kind=glossary');
    expect(glossaries.body.knowledge_artifacts.map((k: any) => k.id)).toEqual([
      exact.body.knowledge_artifact.id,
    ]);
    const drafts = await get('/v1/data-agents/knowledge-artifacts?status=draft');
    expect(drafts.body.knowledge_artifacts.map((k: any) => k.id)).toEqual([faq.body.knowledge_artifact.id]);
    // Two filters at once read on the heavy-read path: the same answer.
    const both = await get('/v1/data-agents/knowledge-artifacts?status=published&kind=glossary');
    expect(both.body.knowledge_artifacts.map((k: any) => k.id)).toEqual([exact.body.knowledge_artifact.id]);
    expect(
      await outbox('data_agent_knowledge_artifact.created', faq.body.knowledge_artifact.id),
    ).toHaveLength(1);

    // update_data_agent_knowledge_artifact (extension): a draft is edited, then published, then archived.
    const faqId = faq.body.knowledge_artifact.id;
    const url = `/v1/data-agents/knowledge-artifacts/${faqId}`;
    const tooBig = await patch(url, { content: 'z'.repeat(256 * 1024 + 1) });
    expect(fields(tooBig)).toEqual(['content']);
    const edited = await patch(url, {
      content: '## Q\nA, edited',
      source_refs: [{ type: 'contact', id: contactId }],
    });
    expect(edited.body.knowledge_artifact).toMatchObject({ content: '## Q\nA, edited', status: 'draft' });
    expect((await patch(url, { status: 'published' })).body.knowledge_artifact.status).toBe('published');
    const lateEdit = await patch(url, { title: 'Too late' });
    expect(lateEdit.status).toBe(409);
    expect(lateEdit.body.error.message).toContain('published');
    expect((await patch(url, { status: 'archived' })).body.knowledge_artifact.status).toBe('archived');
    const revive = await patch(url, { status: 'published' });
    expect(revive.status).toBe(409);
    expect(revive.body.error.message).toContain('archived');
    expect(await outbox('data_agent_knowledge_artifact.status_changed', faqId)).toHaveLength(2);
    expect((await patch(url, { title: 'x' }, other.apiKey)).status).toBe(404);
  });
});

describe('isolation', () => {
  it('keeps every record of these types out of another workspace', async () => {
    const lists = {
      decisions: '/v1/data-agents/decisions',
      insights: '/v1/data-agents/insights',
      source_objects: '/v1/data-agents/source-objects',
      knowledge_artifacts: '/v1/data-agents/knowledge-artifacts',
    };
    for (const [key, url] of Object.entries(lists)) {
      const mine = (await get(url)).body[key];
      expect(mine.length, key).toBeGreaterThan(0);
      expect((await get(url, other.apiKey)).body[key], key).toEqual([]);
      const types: Record<string, string> = {
        decisions: 'data_agent_decision',
        insights: 'data_agent_insight',
        source_objects: 'data_agent_source_object',
        knowledge_artifacts: 'data_agent_knowledge_artifact',
      };
      const lookup = await get(`${url}/${mine[0].id}`, other.apiKey);
      expect(lookup.status, key).toBe(404);
      const viaRecord = await tool('get_record', { type: types[key], id: mine[0].id }, other.mcpToken);
      expect(viaRecord.body.error.code).toBe('resource_not_found');
    }
    const decision = (await get('/v1/data-agents/decisions?status=proposed')).body.decisions[0].id;
    expect((await patch(`/v1/data-agents/decisions/${decision}`, { title: 'x' }, other.apiKey)).status).toBe(
      404,
    );
    const approve = await tool('approve_data_agent_decision', { decision_id: decision }, other.mcpToken);
    expect(approve.body.error.code).toBe('resource_not_found');
    const insight = (await get('/v1/data-agents/insights')).body.insights[0].id;
    const publish = await tool('publish_data_agent_insight', { insight_id: insight }, other.mcpToken);
    expect(publish.body.error.code).toBe('resource_not_found');
    const archive = await h.request('DELETE', `/v1/data-agents/insights/${insight}`, { token: other.apiKey });
    expect(archive.status).toBe(404);
    const supersede = await post(
      '/v1/data-agents/decisions',
      decisionInput({ supersedes_id: decision }),
      other.apiKey,
    );
    expect(supersede.status).toBe(404);
  });
});
