// Agent sessions and their ordered items; memories with their scopes and expiry; memory embeddings that go
// stale with their memory's content.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let agentId: string;
let agentVersionId: string;

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown, token = ws.apiKey) => h.request('PATCH', url, { token, body });
const get = (url: string, token = ws.apiKey) => h.request('GET', url, { token });
const fields = (response: { body: any }) => response.body.error.field_errors.map((e: any) => e.field);

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other workspace');
  agentId = (await post('/v1/agent-grid/agents', { key: 'helper', name: 'Helper', instructions: 'Help.' }))
    .body.agent.id;
  agentVersionId = (await post('/v1/agent-grid/agent-versions', { agent_id: agentId })).body.agent_version.id;
});
afterAll(() => h.close());

describe('agent sessions', () => {
  it('number their items in order and page through them', async () => {
    const session = (
      await post('/v1/agent-grid/sessions', { agent_id: agentId, user_id: 'u-1', title: 'Help' })
    ).body.session;
    expect(session).toMatchObject({ status: 'open', item_count: 0, agent_id: agentId, user_id: 'u-1' });
    const roles = ['system', 'user', 'assistant', 'user', 'assistant'];
    for (const [i, role] of roles.entries()) {
      const item = await post('/v1/agent-grid/session-items', {
        session_id: session.id,
        role,
        content: `turn ${i + 1}`,
      });
      expect(item.status).toBe(201);
      expect(item.body.session_item.sequence).toBe(i + 1);
    }
    // Concurrent appends get distinct numbers.
    const concurrent = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        post('/v1/agent-grid/session-items', { session_id: session.id, role: 'user', content: `burst ${i}` }),
      ),
    );
    expect(concurrent.map((r) => r.body.session_item.sequence).sort()).toEqual([6, 7, 8, 9]);

    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await get(
        `/v1/agent-grid/session-items?session_id=${session.id}&limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.session_items.map((i: any) => i.sequence));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const latest = await get(`/v1/agent-grid/session-items?session_id=${session.id}&order=desc&limit=2`);
    expect(latest.body.session_items.map((i: any) => i.sequence)).toEqual([9, 8]);
    const assistant = await get(`/v1/agent-grid/session-items?session_id=${session.id}&role=assistant`);
    expect(assistant.body.session_items.map((i: any) => i.content)).toEqual(['turn 3', 'turn 5']);
    expect((await get(`/v1/agent-grid/sessions/${session.id}`)).body.session.item_count).toBe(9);

    // References: a run of this session and its tool call; a tool item names its call.
    const run = (
      await post('/v1/agent-grid/runs', { agent_version_id: agentVersionId, session_id: session.id })
    ).body.run;
    const call = (await post('/v1/agent-grid/tool-calls', { run_id: run.id, tool: 'list_tasks' })).body
      .tool_call;
    expect(
      fields(
        await post('/v1/agent-grid/session-items', { session_id: session.id, role: 'tool', content: '[]' }),
      ),
    ).toEqual(['tool_call_id']);
    const toolItem = await post('/v1/agent-grid/session-items', {
      session_id: session.id,
      role: 'tool',
      content: '[]',
      run_id: run.id,
      tool_call_id: call.id,
    });
    expect(toolItem.body.session_item).toMatchObject({ sequence: 10, run_id: run.id, tool_call_id: call.id });
    const elsewhere = (await post('/v1/agent-grid/runs', { agent_version_id: agentVersionId })).body.run;
    const notHere = await post('/v1/agent-grid/session-items', {
      session_id: session.id,
      role: 'assistant',
      content: 'x',
      run_id: elsewhere.id,
    });
    expect(fields(notHere)).toEqual(['run_id']);
  });

  it('take nothing new once closed, and reopen', async () => {
    const session = (await post('/v1/agent-grid/sessions', { agent_id: agentId })).body.session;
    const closed = await patch(`/v1/agent-grid/sessions/${session.id}`, { status: 'closed', title: 'Done' });
    expect(closed.body.session).toMatchObject({ status: 'closed', title: 'Done' });
    const item = await post('/v1/agent-grid/session-items', {
      session_id: session.id,
      role: 'user',
      content: 'hi',
    });
    expect(item.status).toBe(409);
    expect(item.body.error.message).toContain('closed');
    expect(
      (await post('/v1/agent-grid/runs', { agent_version_id: agentVersionId, session_id: session.id }))
        .status,
    ).toBe(409);
    await patch(`/v1/agent-grid/sessions/${session.id}`, { status: 'open' });
    expect(
      (await post('/v1/agent-grid/session-items', { session_id: session.id, role: 'user', content: 'hi' }))
        .status,
    ).toBe(201);
    // A session of one agent runs only that agent.
    const otherAgent = (
      await post('/v1/agent-grid/agents', { key: 'other', name: 'Other', instructions: 'x' })
    ).body.agent;
    const otherVersion = (await post('/v1/agent-grid/agent-versions', { agent_id: otherAgent.id })).body
      .agent_version;
    const mismatch = await post('/v1/agent-grid/runs', {
      agent_version_id: otherVersion.id,
      session_id: session.id,
    });
    expect(fields(mismatch)).toEqual(['session_id']);
    expect((await get(`/v1/agent-grid/sessions?agent_id=${agentId}&limit=100`)).body.sessions.length).toBe(2);
    expect((await get(`/v1/agent-grid/session-items?session_id=${session.id}`, other.apiKey)).status).toBe(
      404,
    );
    expect(
      (
        await post(
          '/v1/agent-grid/session-items',
          { session_id: session.id, role: 'user', content: 'x' },
          other.apiKey,
        )
      ).status,
    ).toBe(404);
  });
});

describe('agent memories', () => {
  it('belong to a scope that exists, and lists leave out archived and expired ones', async () => {
    expect(fields(await post('/v1/agent-grid/memories', { scope: 'agent', content: 'x' }))).toEqual([
      'scope_id',
    ]);
    expect(fields(await post('/v1/agent-grid/memories', { scope_id: agentId, content: 'x' }))).toEqual([
      'scope_id',
    ]);
    expect(
      (await post('/v1/agent-grid/memories', { scope: 'agent', scope_id: 'agt_missing', content: 'x' }))
        .status,
    ).toBe(404);
    expect(
      (
        await post(
          '/v1/agent-grid/memories',
          { scope: 'agent', scope_id: agentId, content: 'x' },
          other.apiKey,
        )
      ).status,
    ).toBe(404);
    expect(fields(await post('/v1/agent-grid/memories', { content: 'x', importance: 1.5 }))).toEqual([
      'importance',
    ]);
    expect(
      fields(await post('/v1/agent-grid/memories', { content: 'x', expires_at: '2020-01-01T00:00:00Z' })),
    ).toEqual(['expires_at']);

    const global = (await post('/v1/agent-grid/memories', { content: 'Office closes at 6pm.' })).body.memory;
    expect(global).toMatchObject({ scope: 'workspace', scope_id: null, importance: 0.5, status: 'active' });
    const forAgent = (
      await post('/v1/agent-grid/memories', {
        scope: 'agent',
        scope_id: agentId,
        content: 'Be brief.',
        importance: 0.9,
      })
    ).body.memory;
    const forUser = (
      await post('/v1/agent-grid/memories', { scope: 'user', scope_id: 'u-1', content: 'Likes email.' })
    ).body.memory;
    const soon = new Date(h.clock.now().getTime() + 60_000).toISOString();
    const fleeting = (
      await post('/v1/agent-grid/memories', {
        scope: 'user',
        scope_id: 'u-1',
        content: 'Is on call.',
        expires_at: soon,
      })
    ).body.memory;

    const ids = async (query: string) =>
      (await get(`/v1/agent-grid/memories${query}`)).body.memories.map((m: any) => m.id);
    expect(await ids('?scope=workspace')).toEqual([global.id]);
    expect(await ids(`?scope=agent&scope_id=${agentId}`)).toEqual([forAgent.id]);
    expect(await ids('?scope=user&scope_id=u-1')).toEqual([fleeting.id, forUser.id]);
    h.clock.advance(120_000);
    expect(await ids('?scope=user&scope_id=u-1')).toEqual([forUser.id]);
    expect(await ids('?scope=user&scope_id=u-1&include_expired=true')).toEqual([fleeting.id, forUser.id]);
    await patch(`/v1/agent-grid/memories/${forUser.id}`, { status: 'archived' });
    expect(await ids('?scope=user&scope_id=u-1')).toEqual([]);
    expect(await ids('?scope=user&scope_id=u-1&status=archived')).toEqual([forUser.id]);
    expect((await get('/v1/agent-grid/memories', other.apiKey)).body.memories).toEqual([]);
    expect(
      (await patch(`/v1/agent-grid/memories/${global.id}`, { importance: 1 }, other.apiKey)).status,
    ).toBe(404);
  });

  it('keep their embeddings in step with their content', async () => {
    const memory = (await post('/v1/agent-grid/memories', { content: 'Ada prefers email.' })).body.memory;
    const wrongLength = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'mem',
      dimension: 4,
      vector: [0.5, 0.25, 0.125],
    });
    expect(fields(wrongLength)).toEqual(['vector']);
    expect(
      fields(await post('/v1/agent-grid/memory-embeddings', { memory_id: memory.id, collection_key: 'mem' })),
    ).toEqual(['dimension']);
    const created = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'mem',
      model: 'test-embed',
      vector: [0.5, -0.25, 0.125],
    });
    expect(created.status).toBe(201);
    const embedding = created.body.memory_embedding;
    expect(embedding).toMatchObject({ dimension: 3, status: 'ready', vector: [0.5, -0.25, 0.125] });
    const twice = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'mem',
      vector: [1],
    });
    expect(fields(twice)).toEqual(['collection_key']);
    const pending = (
      await post('/v1/agent-grid/memory-embeddings', {
        memory_id: memory.id,
        collection_key: 'other',
        dimension: 2,
      })
    ).body.memory_embedding;
    expect(pending).toMatchObject({ status: 'pending', vector: null });

    // Same content: nothing changes. New content: the ready embedding goes stale, the pending one waits.
    await patch(`/v1/agent-grid/memories/${memory.id}`, { content: 'Ada prefers email.' });
    expect((await get(`/v1/agent-grid/memory-embeddings/${embedding.id}`)).body.memory_embedding.status).toBe(
      'ready',
    );
    const edited = await patch(`/v1/agent-grid/memories/${memory.id}`, {
      content: 'Ada prefers phone calls now.',
    });
    expect(edited.body.memory.content).toBe('Ada prefers phone calls now.');
    expect((await get(`/v1/agent-grid/memory-embeddings/${embedding.id}`)).body.memory_embedding.status).toBe(
      'stale',
    );
    expect((await get(`/v1/agent-grid/memory-embeddings/${pending.id}`)).body.memory_embedding.status).toBe(
      'pending',
    );
    const stale = await get('/v1/agent-grid/memory-embeddings?status=stale');
    expect(stale.body.memory_embeddings).toEqual([
      expect.objectContaining({ id: embedding.id, vector: null }),
    ]);

    expect(
      fields(await patch(`/v1/agent-grid/memory-embeddings/${embedding.id}`, { vector: [1, 2] })),
    ).toEqual(['vector']);
    const refreshed = await patch(`/v1/agent-grid/memory-embeddings/${embedding.id}`, {
      vector: [0.25, 0.5, 1],
    });
    expect(refreshed.body.memory_embedding).toMatchObject({ status: 'ready', vector: [0.25, 0.5, 1] });
    const failed = await patch(`/v1/agent-grid/memory-embeddings/${pending.id}`, {
      status: 'failed',
      error_message: 'timeout',
    });
    expect(failed.body.memory_embedding).toMatchObject({ status: 'failed', error_message: 'timeout' });
    const withVectors = await get(
      `/v1/agent-grid/memory-embeddings?memory_id=${memory.id}&include_vectors=true`,
    );
    expect(withVectors.body.memory_embeddings.map((e: any) => e.vector)).toEqual([null, [0.25, 0.5, 1]]);

    await patch(`/v1/agent-grid/memories/${memory.id}`, { status: 'archived' });
    const onArchived = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'x',
      vector: [1],
    });
    expect(onArchived.status).toBe(409);
    expect((await get(`/v1/agent-grid/memory-embeddings/${embedding.id}`, other.apiKey)).status).toBe(404);
    expect(
      (await patch(`/v1/agent-grid/memory-embeddings/${embedding.id}`, { status: 'archived' }, other.apiKey))
        .status,
    ).toBe(404);
  });
});
