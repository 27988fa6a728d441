// The external embedder against a local fake of the OpenAI embeddings API: documents answer pending and a
// job embeds them off the write transaction in batches (retrying a transient failure, marking a refused one
// failed); a query text is embedded at search time; the key reaches the endpoint and nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinEmbedding } from '../src/modules/data-agents/vectors/builtin-embedder.ts';
import { Harness, type TestWorkspace } from './helpers/harness.ts';
import { type JsonServer, jsonServer } from './helpers/loopback-servers.ts';

const KEY = 'sk-test-embeddings-key-0123456789';
const DIM = 64;
let h: Harness;
let ws: TestWorkspace;
let server: JsonServer;
const calls: { auth: string | undefined; model: string; input: string[] }[] = [];
let failNext = 0;

beforeAll(async () => {
  // Speaks POST /v1/embeddings. Texts containing "reject" get a 400, "down" a 500; failNext answers 503.
  server = await jsonServer('/v1/embeddings', (body: { model: string; input: string[] }, request) => {
    calls.push({ auth: request.headers.authorization, model: body.model, input: body.input });
    const status =
      failNext-- > 0
        ? 503
        : body.input.some((t) => t.includes('reject'))
          ? 400
          : body.input.some((t) => t.includes('down'))
            ? 500
            : 200;
    if (status !== 200) return { status, body: { error: { message: 'no' } } };
    return {
      body: {
        object: 'list',
        model: body.model,
        data: body.input.map((text, index) => ({
          object: 'embedding',
          index,
          embedding: Array.from(builtinEmbedding(text, DIM)),
        })),
        usage: { prompt_tokens: 5, total_tokens: 5 },
      },
    };
  });
  h = await Harness.start({
    env: {
      WOS_WORKER: 'on',
      WOS_WORKER_POLL_MS: '20',
      WOS_EMBEDDINGS_URL: server.url,
      WOS_EMBEDDINGS_MODEL: 'text-embedding-test',
      WOS_EMBEDDINGS_API_KEY: KEY,
      WOS_EMBEDDINGS_BATCH_SIZE: '2',
    },
  });
  ws = await h.workspace();
  const created = await h.request('POST', '/v1/vector-collections', {
    token: ws.apiKey,
    body: { key: 'kb', name: 'Knowledge base', dimension: DIM, embedder: 'external' },
  });
  expect(created.status, created.text).toBe(201);
});
afterAll(async () => {
  await h.close();
  await server.close();
});

const statuses = async () =>
  Object.fromEntries(
    (
      await h.db
        .selectFrom('vector_documents')
        .select(['id', 'status', 'embedding_error'])
        .where('workspace_id', '=', ws.id)
        .execute()
    ).map((r) => [r.id, r]),
  );

async function until(check: () => Promise<boolean>) {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('timed out');
}

describe('the external embedder', () => {
  it('answers pending, then a job embeds the texts in batches with the key, after the commit', async () => {
    failNext = 1; // the first batch meets a 503 and is retried
    const upserted = await h.request('POST', '/v1/vector-collections/kb/documents', {
      token: ws.apiKey,
      body: {
        documents: [
          { id: 'pw', text: 'Reset your password in the security settings' },
          { id: 'inv', text: 'Download invoices and receipts' },
          { id: 'sso', text: 'Single sign-on with SAML' },
          { id: 'api', text: 'Create an API key for scripts' },
          { id: 'vec', vector: Array.from(builtinEmbedding('export data to csv', DIM)) },
        ],
      },
    });
    expect(upserted.status, upserted.text).toBe(200);
    expect(upserted.body.documents.map((d: any) => d.status)).toEqual([
      'pending',
      'pending',
      'pending',
      'pending',
      'ready',
    ]);
    expect(upserted.body.vector_collection).toMatchObject({
      document_count: 5,
      pending_count: 4,
      failed_count: 0,
    });
    await until(async () => Object.values(await statuses()).every((d) => d.status === 'ready'));
    const counted = await h.request('GET', '/v1/vector-collections/kb', { token: ws.apiKey });
    expect(counted.body.vector_collection).toMatchObject({
      document_count: 5,
      pending_count: 0,
      failed_count: 0,
    });
    const embeddingCalls = calls.filter((c) => !c.input.includes('where are my receipts'));
    expect(embeddingCalls.every((c) => c.auth === `Bearer ${KEY}` && c.model === 'text-embedding-test')).toBe(
      true,
    );
    expect(embeddingCalls.every((c) => c.input.length <= 2)).toBe(true);
    expect(embeddingCalls.flatMap((c) => c.input)).toEqual(
      expect.arrayContaining([
        'Reset your password in the security settings',
        'Create an API key for scripts',
      ]),
    );
    expect(embeddingCalls).toHaveLength(3); // two batches of two, one of them twice (503 then 200)

    await h.flushUsage();
    const event = await h.db
      .selectFrom('call_events')
      .select('units')
      .where('workspace_id', '=', ws.id)
      .where('route', 'like', '%documents%')
      .executeTakeFirstOrThrow();
    expect(event.units).toBe(2); // 1 for the call, 1 for up to 100 texts embedded
  });

  it('embeds a query text at search time and finds the documents the job embedded', async () => {
    const found = await h.request('POST', '/v1/vector-collections/kb/search', {
      token: ws.apiKey,
      body: { query: 'where are my receipts', top_k: 2 },
    });
    expect(found.status, found.text).toBe(200);
    expect(found.body.results[0].id).toBe('inv');
    expect(calls.at(-1)!.input).toEqual(['where are my receipts']);
  });

  it('marks a document the endpoint refuses failed, and answers a query it cannot embed with 503', async () => {
    await h.request('POST', '/v1/vector-collections/kb/documents', {
      token: ws.apiKey,
      body: { documents: [{ id: 'bad', text: 'please reject this one' }] },
    });
    await until(async () => (await statuses()).bad?.status === 'failed');
    const bad = (await statuses()).bad!;
    expect(bad.embedding_error).toMatch(/HTTP 400/);
    expect(bad.embedding_error).not.toContain(KEY);
    const counted = await h.request('GET', '/v1/vector-collections/kb', { token: ws.apiKey });
    expect(counted.body.vector_collection).toMatchObject({ pending_count: 0, failed_count: 1 });
    const down = await h.request('POST', '/v1/vector-collections/kb/search', {
      token: ws.apiKey,
      body: { query: 'the endpoint is down' },
    });
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('upstream_unavailable');
    expect(down.text).not.toContain(KEY);
    const byVector = await h.request('POST', '/v1/vector-collections/kb/search', {
      token: ws.apiKey,
      body: { vector: Array.from(builtinEmbedding('export csv', DIM)), top_k: 1 },
    });
    expect(byVector.body.results[0].id).toBe('vec');
  }, 30_000);

  it('replacing a pending document before its embedding lands keeps the newer text', async () => {
    await h.request('POST', '/v1/vector-collections/kb/documents', {
      token: ws.apiKey,
      body: { documents: [{ id: 'swap', text: 'first version about billing' }] },
    });
    await h.request('POST', '/v1/vector-collections/kb/documents', {
      token: ws.apiKey,
      body: { documents: [{ id: 'swap', text: 'second version about onboarding' }] },
    });
    await until(async () => (await statuses()).swap?.status === 'ready');
    const found = await h.request('POST', '/v1/vector-collections/kb/search', {
      token: ws.apiKey,
      body: { vector: Array.from(builtinEmbedding('second version about onboarding', DIM)), top_k: 1 },
    });
    expect(found.body.results[0]).toMatchObject({ id: 'swap', text: 'second version about onboarding' });
    expect(found.body.results[0].score).toBeCloseTo(1, 4);
    // Deleting the failed document and the replaced one leaves every counter in step.
    const deleted = await h.request('DELETE', '/v1/vector-collections/kb/documents', {
      token: ws.apiKey,
      body: { ids: ['bad', 'swap'] },
    });
    expect(deleted.body.vector_collection).toMatchObject({
      document_count: 5,
      pending_count: 0,
      failed_count: 0,
    });
  });
});
