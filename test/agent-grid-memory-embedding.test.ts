// Memories in a vector collection with an embedder: the builtin one embeds in the call, an external one (a
// local fake of the OpenAI embeddings API) by a job after it; new content re-embeds; the vector is the
// collection's document of the memory, so vector search finds memories.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEmbedding } from '../src/modules/data-agents/vectors/builtin-embedder.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { type JsonServer, jsonServer } from './helpers/loopback-servers.ts';

const DIM = 32;
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;
let server: JsonServer;
const inputs: string[][] = [];
let refuse = false;

const post = (url: string, body: unknown, token = ws.apiKey) => h.request('POST', url, { token, body });
const patch = (url: string, body: unknown) => h.request('PATCH', url, { token: ws.apiKey, body });
const get = (url: string) => h.request('GET', url, { token: ws.apiKey });
const float32 = (values: ArrayLike<number>) => Array.from(Float32Array.from(values));
const embeddingOf = async (memoryId: string) =>
  (await get(`/v1/agent-grid/memory-embeddings?memory_id=${memoryId}&include_vectors=true`)).body
    .memory_embeddings[0];

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 300; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out');
}

beforeAll(async () => {
  server = await jsonServer('/v1/embeddings', (body: { input: string[] }) => {
    inputs.push(body.input);
    if (refuse) return { status: 400, body: { error: { message: 'no' } } };
    const data = body.input.map((text, index) => ({
      index,
      embedding: Array.from(builtinEmbedding(`x ${text}`, DIM)),
    }));
    return { body: { object: 'list', data } };
  });
  h = await Harness.start({
    env: {
      WOS_WORKER: 'on',
      WOS_WORKER_POLL_MS: '20',
      WOS_EMBEDDINGS_URL: server.url,
      WOS_EMBEDDINGS_MODEL: 'fake-embed',
    },
  });
  ws = await h.workspace();
  other = await h.workspace('Other workspace');
  for (const [key, embedder] of [
    ['memories', 'builtin'],
    ['remote', 'external'],
    ['manual', 'none'],
  ]) {
    const created = await post('/v1/vector-collections', { key, name: key, dimension: DIM, embedder });
    expect(created.status, created.text).toBe(201);
  }
});
afterAll(async () => {
  await h.close();
  await server.close();
});

describe('memories in a vector collection', () => {
  it('are embedded by the builtin embedder in the call and found by vector search', async () => {
    expect((await post('/v1/agent-grid/memories', { content: 'x', collection_key: 'nope' })).status).toBe(
      404,
    );
    expect(
      (await post('/v1/agent-grid/memories', { content: 'x', collection_key: 'memories' }, other.apiKey))
        .status,
    ).toBe(404);
    const memory = (
      await post('/v1/agent-grid/memories', {
        scope: 'user',
        scope_id: 'u-7',
        content: 'Ada prefers invoices by email',
        collection_key: 'memories',
      })
    ).body.memory;
    await post('/v1/agent-grid/memories', {
      content: 'The office dog is called Biscuit',
      collection_key: 'memories',
    });
    const embedding = await embeddingOf(memory.id);
    expect(embedding).toMatchObject({
      collection_key: 'memories',
      model: 'builtin',
      dimension: DIM,
      status: 'ready',
    });
    expect(embedding.vector).toEqual(float32(builtinEmbedding('Ada prefers invoices by email', DIM)));

    const search = async (query: string) =>
      (await post('/v1/vector-collections/memories/search', { query, top_k: 1 })).body;
    const found = await search('invoice email');
    expect(found.results[0]).toMatchObject({
      id: memory.id,
      metadata: { source: 'agent_memory', scope: 'user', scope_id: 'u-7' },
    });

    // New content: re-embedded in the same call, and the document follows.
    await patch(`/v1/agent-grid/memories/${memory.id}`, { content: 'Ada now wants invoices by post' });
    const refreshed = await embeddingOf(memory.id);
    expect(refreshed.status).toBe('ready');
    expect(refreshed.vector).toEqual(float32(builtinEmbedding('Ada now wants invoices by post', DIM)));
    expect((await search('invoices post')).results[0]).toMatchObject({
      id: memory.id,
      text: 'Ada now wants invoices by post',
    });

    // Archived, the memory leaves the collection; active again, it is back.
    await patch(`/v1/agent-grid/memories/${memory.id}`, { status: 'archived' });
    expect((await search('invoices post')).results.map((r: any) => r.id)).not.toContain(memory.id);
    await patch(`/v1/agent-grid/memories/${memory.id}`, { content: 'Ada wants invoices by post, archived' });
    expect((await search('invoices post')).results.map((r: any) => r.id)).not.toContain(memory.id);
    await patch(`/v1/agent-grid/memories/${memory.id}`, { status: 'active' });
    expect((await search('invoices post')).results[0]).toMatchObject({
      id: memory.id,
      text: 'Ada wants invoices by post, archived',
    });

    // A caller's vector for a vector collection must have its dimension.
    const wrong = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'manual',
      vector: [1, 0],
    });
    expect(wrong.body.error.field_errors[0].field).toBe('dimension');
    await post('/v1/vector-collections', { key: 'old', name: 'old', dimension: DIM, embedder: 'builtin' });
    expect((await h.request('DELETE', '/v1/vector-collections/old', { token: ws.apiKey })).status).toBe(200);
    expect((await post('/v1/agent-grid/memories', { content: 'x', collection_key: 'old' })).status).toBe(409);
    const archived = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'old',
    });
    expect(archived.status).toBe(409);
    const manual = await post('/v1/agent-grid/memory-embeddings', {
      memory_id: memory.id,
      collection_key: 'manual',
    });
    expect(manual.body.memory_embedding).toMatchObject({ status: 'pending', dimension: DIM });
  });

  it('are embedded by an external embedder after the call, and again when their content changes', async () => {
    const memory = (
      await post('/v1/agent-grid/memories', { content: 'Grace reviews contracts', collection_key: 'remote' })
    ).body.memory;
    const pending = await embeddingOf(memory.id);
    expect(['pending', 'ready']).toContain(pending.status);
    await until(async () => (await embeddingOf(memory.id)).status === 'ready');
    const ready = await embeddingOf(memory.id);
    expect(ready).toMatchObject({
      model: 'fake-embed',
      vector: float32(builtinEmbedding('x Grace reviews contracts', DIM)),
    });
    expect(inputs.flat()).toContain('Grace reviews contracts');

    await patch(`/v1/agent-grid/memories/${memory.id}`, { content: 'Grace signs contracts' });
    await until(async () => {
      const current = await embeddingOf(memory.id);
      return (
        current.status === 'ready' &&
        current.vector[0] === float32(builtinEmbedding('x Grace signs contracts', DIM))[0]
      );
    });
    const search = await post('/v1/vector-collections/remote/search', {
      vector: Array.from(builtinEmbedding('x Grace signs contracts', DIM)),
      top_k: 1,
    });
    expect(search.body.results[0]).toMatchObject({ id: memory.id, text: 'Grace signs contracts' });

    refuse = true;
    const refused = (
      await post('/v1/agent-grid/memories', { content: 'Refused text', collection_key: 'remote' })
    ).body.memory;
    await until(async () => (await embeddingOf(refused.id)).status === 'failed');
    expect((await embeddingOf(refused.id)).error_message).toContain('400');
    refuse = false;
  });
});
