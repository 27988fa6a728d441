// Vector collections through the real server: collections, upserts and replaces, deletes by ids and by filter,
// exact search with filters, min_score and include_vectors, the built-in embedder, archive, tenant isolation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

beforeAll(async () => {
  h = await Harness.start();
  ws = await h.workspace();
  other = await h.workspace('Other');
});
afterAll(() => h.close());

const call = (method: string, url: string, body?: unknown, token = ws.apiKey) =>
  h.request(method, url, { token, body });
const docs = (key: string, documents: unknown[], token = ws.apiKey) =>
  call('POST', `/v1/vector-collections/${key}/documents`, { documents }, token);
const search = (key: string, body: Record<string, unknown>, token = ws.apiKey) =>
  call('POST', `/v1/vector-collections/${key}/search`, body, token);

describe('vector collections', () => {
  it('are created, listed and looked up by key; a taken key or a bad dimension is validation_failed', async () => {
    const created = await call('POST', '/v1/vector-collections', {
      key: 'points',
      name: 'Points',
      dimension: 3,
      metric: 'cosine',
    });
    expect(created.status).toBe(201);
    expect(created.body.vector_collection).toMatchObject({
      key: 'points',
      dimension: 3,
      metric: 'cosine',
      embedder: 'none',
      status: 'active',
      document_count: 0,
    });
    const again = await call('POST', '/v1/vector-collections', {
      key: 'points',
      name: 'Again',
      dimension: 3,
    });
    expect(again.status).toBe(400);
    expect(again.body.error.field_errors[0].field).toBe('key');
    const big = await call('POST', '/v1/vector-collections', { key: 'big', name: 'Big', dimension: 4097 });
    expect(big.status).toBe(400);
    expect(big.body.error.field_errors[0].field).toBe('dimension');
    const external = await call('POST', '/v1/vector-collections', {
      key: 'ext',
      name: 'External',
      dimension: 3,
      embedder: 'external',
    });
    expect(external.status).toBe(400);
    expect(external.body.error.field_errors[0].field).toBe('embedder');

    const listed = await call('GET', '/v1/vector-collections');
    expect(listed.body.vector_collections.map((c: any) => c.key)).toEqual(['points']);
    const byKey = await call('GET', '/v1/vector-collections/points');
    expect(byKey.status).toBe(200);
    expect(byKey.body.vector_collection.id).toBe(created.body.vector_collection.id);
    const record = await h.callTool(ws.mcpToken, 'get_record', {
      type: 'vector_collection',
      id: created.body.vector_collection.id,
    });
    expect(record.body.record.key).toBe('points');
  });

  it('upsert validates every document by index and changes nothing on a failure', async () => {
    const bad = await docs('points', [
      { id: 'a', vector: [1, 0, 0] },
      { id: 'b', vector: [1, 0] },
      { id: 'a', vector: [0, 1, 0] },
      { id: 'c', text: 'no vector' },
      { id: 'd', vector: [1, 0, 0], metadata: { nested: { no: true } } },
    ]);
    expect(bad.status).toBe(400);
    const fields = bad.body.error.field_errors.map((e: any) => e.field);
    expect(fields).toContain('documents[4].metadata.nested');
    const semantic = await docs('points', [
      { id: 'a', vector: [1, 0, 0] },
      { id: 'b', vector: [1, 0] },
      { id: 'a', vector: [0, 1, 0] },
      { id: 'c', text: 'no vector' },
    ]);
    expect(semantic.status).toBe(400);
    expect(semantic.body.error.field_errors.map((e: any) => e.field)).toEqual([
      'documents[1].vector',
      'documents[2].id',
      'documents[3].vector',
    ]);
    const tooMany = await docs(
      'points',
      Array.from({ length: 501 }, (_, i) => ({ id: `x${i}`, vector: [1, 0, 0] })),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.field_errors[0].field).toBe('documents');
    const nan = await h.request('POST', '/v1/vector-collections/points/documents', {
      token: ws.apiKey,
      rawBody: '{"documents":[{"id":"n","vector":[NaN,0,0]}]}',
    });
    expect(nan.status).toBe(400);
    const count = await call('GET', '/v1/vector-collections/points');
    expect(count.body.vector_collection.document_count).toBe(0);
  });

  it('upserts, replaces an existing id, and searches exactly with filters, min_score and include_vectors', async () => {
    const first = await docs('points', [
      { id: 'east', vector: [1, 0, 0], text: 'east', metadata: { lang: 'en', year: 2024, tags: ['a', 'b'] } },
      { id: 'north', vector: [0, 1, 0], text: 'north', metadata: { lang: 'de', year: 2025, tags: ['b'] } },
      { id: 'up', vector: [0, 0, 1], metadata: { lang: 'en', year: 2026, draft: true } },
      { id: 'ne', vector: [1, 1, 0], metadata: { lang: 'fr', year: 2026 } },
    ]);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created: 4, replaced: 0 });
    expect(first.body.vector_collection.document_count).toBe(4);
    expect(first.body.documents.every((d: any) => d.status === 'ready')).toBe(true);

    const all = await search('points', { vector: [1, 0.1, 0], top_k: 4 });
    expect(all.status, all.text).toBe(200);
    expect(all.body).toMatchObject({ metric: 'cosine', mode: 'exact', collection_key: 'points' });
    expect(all.body.results.map((r: any) => r.id)).toEqual(['east', 'ne', 'north', 'up']);
    expect(all.body.results[0].score).toBeCloseTo(1 / Math.sqrt(1.01), 5);
    expect(all.body.results[0]).toMatchObject({ text: 'east', metadata: { lang: 'en', year: 2024 } });
    expect(all.body.results[0].vector).toBeUndefined();

    const eq = await search('points', { vector: [1, 0, 0], filter: { lang: 'en' } });
    expect(eq.body.results.map((r: any) => r.id)).toEqual(['east', 'up']);
    const inList = await search('points', { vector: [1, 0, 0], filter: { lang: { in: ['de', 'fr'] } } });
    expect(inList.body.results.map((r: any) => r.id)).toEqual(['ne', 'north']);
    const range = await search('points', { vector: [1, 0, 0], filter: { year: { gte: 2025, lt: 2026 } } });
    expect(range.body.results.map((r: any) => r.id)).toEqual(['north']);
    const arrayTag = await search('points', {
      vector: [1, 0, 0],
      filter: { tags: 'b', year: { lte: 2024 } },
    });
    expect(arrayTag.body.results.map((r: any) => r.id)).toEqual(['east']);
    const bool = await search('points', { vector: [1, 0, 0], filter: { draft: true } });
    expect(bool.body.results.map((r: any) => r.id)).toEqual(['up']);
    const min = await search('points', { vector: [1, 0, 0], min_score: 0.5, include_vectors: true });
    expect(min.body.results.map((r: any) => r.id)).toEqual(['east', 'ne']);
    expect(min.body.results[0].vector).toEqual([1, 0, 0]);

    const replaced = await docs('points', [{ id: 'east', vector: [0, -1, 0], metadata: { lang: 'en' } }]);
    expect(replaced.body).toMatchObject({ created: 0, replaced: 1 });
    expect(replaced.body.vector_collection.document_count).toBe(4);
    const after = await search('points', { vector: [1, 0, 0], top_k: 1, include_vectors: true });
    expect(after.body.results[0].id).toBe('ne');
    const east = await search('points', { vector: [0, -1, 0], top_k: 1 });
    expect(east.body.results[0]).toMatchObject({ id: 'east', metadata: { lang: 'en' } });
    expect(east.body.results[0].metadata.year).toBeUndefined();
  });

  it('search input is checked: one of vector or query, the dimension, a query on embedder none', async () => {
    expect((await search('points', {})).body.error.field_errors[0].field).toBe('vector');
    expect((await search('points', { vector: [1, 0] })).body.error.field_errors[0].field).toBe('vector');
    expect((await search('points', { query: 'east' })).body.error.field_errors[0].field).toBe('query');
    expect((await search('points', { vector: [1, 0, 0], top_k: 101 })).status).toBe(400);
    expect((await search('points', { vector: [1, 0, 0], filter: { lang: { near: 1 } } })).status).toBe(400);
    expect((await search('nope', { vector: [1, 0, 0] })).status).toBe(404);
  });

  it('deletes by ids and by metadata filter', async () => {
    await docs('points', [
      { id: 'd1', vector: [1, 2, 3], metadata: { batch: 'old', n: 1 } },
      { id: 'd2', vector: [1, 2, 3], metadata: { batch: 'old', n: 2 } },
      { id: 'd3', vector: [1, 2, 3], metadata: { batch: 'new', n: 3 } },
    ]);
    const both = await h.request('DELETE', '/v1/vector-collections/points/documents', {
      token: ws.apiKey,
      body: { ids: ['d1'], filter: { batch: 'old' } },
    });
    expect(both.status).toBe(400);
    const byIds = await h.request('DELETE', '/v1/vector-collections/points/documents', {
      token: ws.apiKey,
      body: { ids: ['d1', 'missing'] },
    });
    expect(byIds.status).toBe(200);
    expect(byIds.body).toMatchObject({ deleted: 1, deleted_ids: ['d1'] });
    const byFilter = await h.callTool(ws.mcpToken, 'delete_vector_documents', {
      collection_key: 'points',
      filter: { n: { gte: 2 }, batch: { in: ['old', 'new'] } },
    });
    expect(byFilter.body.deleted_ids.sort()).toEqual(['d2', 'd3']);
    expect(byFilter.body.vector_collection.document_count).toBe(4);
    const left = await search('points', { vector: [1, 2, 3], top_k: 100 });
    expect(left.body.results.map((r: any) => r.id).sort()).toEqual(['east', 'ne', 'north', 'up']);
  });

  it('the built-in embedder embeds text on upsert and query (lexical), over both surfaces', async () => {
    const created = await h.callTool(ws.mcpToken, 'create_vector_collection', {
      key: 'articles',
      name: 'Articles',
      dimension: 256,
      embedder: 'builtin',
    });
    expect(created.body.vector_collection.embedder).toBe('builtin');
    const upserted = await h.callTool(ws.mcpToken, 'upsert_vector_documents', {
      collection_key: 'articles',
      documents: [
        { id: 'pw', text: 'How to reset your password from the security settings' },
        { id: 'inv', text: 'Download invoices and receipts for your subscription' },
        { id: 'sso', text: 'Configure single sign-on with SAML for your organisation' },
      ],
    });
    expect(upserted.body.documents.map((d: any) => d.status)).toEqual(['ready', 'ready', 'ready']);
    const found = await h.callTool(ws.mcpToken, 'search_vector_collection', {
      collection_key: 'articles',
      query: 'where are my invoice receipts',
      top_k: 2,
    });
    expect(found.body.results[0].id).toBe('inv');
    expect(found.body.results[0].score).toBeGreaterThan(found.body.results[1].score);
    await h.flushUsage();
    const units = await h.db
      .selectFrom('call_events')
      .select(['route', 'units'])
      .where('workspace_id', '=', ws.id)
      .where('route', '=', 'search_vector_collection')
      .execute();
    expect(units.at(-1)?.units).toBe(2);
  });

  it('archive keeps the documents, refuses search and writes with 409, and the operator restores it', async () => {
    const archived = await call('DELETE', '/v1/vector-collections/points');
    expect(archived.status).toBe(200);
    expect(archived.body.vector_collection).toMatchObject({ status: 'archived', document_count: 4 });
    const refused = await search('points', { vector: [1, 0, 0] });
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('conflict');
    expect(refused.body.error.message).toMatch(/archived/);
    expect((await docs('points', [{ id: 'z', vector: [1, 0, 0] }])).status).toBe(409);
    expect((await call('DELETE', '/v1/vector-collections/points')).status).toBe(200);
    const archivedList = await call('GET', '/v1/vector-collections?status=archived');
    expect(archivedList.body.vector_collections.map((c: any) => c.key)).toEqual(['points']);

    const restored = await h.admin('POST', `/workspaces/${ws.id}/vector-collections/points/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.vector_collection.status).toBe('active');
    const back = await search('points', { vector: [1, 1, 0], top_k: 1 });
    expect(back.body.results[0].id).toBe('ne');
  });

  it('another workspace sees none of it, even with the same key and document IDs', async () => {
    expect((await call('GET', '/v1/vector-collections/points', undefined, other.apiKey)).status).toBe(404);
    expect((await search('points', { vector: [1, 0, 0] }, other.apiKey)).status).toBe(404);
    await call(
      'POST',
      '/v1/vector-collections',
      { key: 'points', name: 'Theirs', dimension: 3 },
      other.apiKey,
    );
    await docs('points', [{ id: 'east', vector: [0, 0, 1], metadata: { owner: 'other' } }], other.apiKey);
    const theirs = await search('points', { vector: [1, 0, 0], top_k: 10 }, other.apiKey);
    expect(theirs.body.results.map((r: any) => [r.id, r.metadata.owner])).toEqual([['east', 'other']]);
    const mine = await search('points', { vector: [0, -1, 0], top_k: 10 });
    expect(mine.body.results).toHaveLength(4);
    expect(mine.body.results[0]).toMatchObject({ id: 'east', metadata: { lang: 'en' } });
    const foreignLookup = await h.callTool(other.mcpToken, 'get_record', {
      type: 'vector_collection',
      id: (await call('GET', '/v1/vector-collections/points')).body.vector_collection.id,
    });
    expect(foreignLookup.result.isError).toBe(true);
  });
});
