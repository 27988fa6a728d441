// Approximate search (HNSW) through the real server, with the exact threshold forced low: recall@10 against
// exact search, filtered search that never returns fewer than top_k when enough documents match, writes seen
// by the next search (the index catches up from the database), and indexes kept apart per workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Harness, type TestWorkspace } from './helpers/harness.ts';

const DIM = 32;
const COUNT = 3000;
let h: Harness;
let ws: TestWorkspace;
let other: TestWorkspace;

/** A seeded generator (mulberry32), so every run indexes the same vectors. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
}
const next = random(7);
const vec = () => Array.from({ length: DIM }, next);
const data = Array.from({ length: COUNT }, (_, i) => ({
  id: `doc-${i}`,
  vector: vec(),
  metadata: { group: i % 50, half: i % 2 === 0 ? 'even' : 'odd', rare: i < 3 },
}));

const cosine = (a: number[], b: number[]) => {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    d += a[i]! * b[i]!;
    na += a[i]! ** 2;
    nb += b[i]! ** 2;
  }
  return d / Math.sqrt(na * nb);
};
const exactTop = (q: number[], k: number, keep: (d: (typeof data)[number]) => boolean = () => true) =>
  data
    .filter(keep)
    .map((d) => ({ id: d.id, score: cosine(q, d.vector) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((d) => d.id);

const search = (body: Record<string, unknown>, token = ws.apiKey, key = 'random') =>
  h.request('POST', `/v1/vector-collections/${key}/search`, { token, body });

async function load(token: string, key: string, documents: unknown[]) {
  for (let i = 0; i < documents.length; i += 500) {
    const r = await h.request('POST', `/v1/vector-collections/${key}/documents`, {
      token,
      body: { documents: documents.slice(i, i + 500) },
    });
    expect(r.status, r.text).toBe(200);
  }
}

/** Searches until this node's index is built (the first searches run exactly while it builds). */
async function untilApproximate(body: Record<string, unknown>, token = ws.apiKey, key = 'random') {
  for (let i = 0; i < 600; i++) {
    const r = await search(body, token, key);
    expect(r.status, r.text).toBe(200);
    if (r.body.mode === 'approximate') return r;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the index was never built');
}

beforeAll(async () => {
  h = await Harness.start({ env: { WOS_VECTOR_EXACT_THRESHOLD: '500' } });
  ws = await h.workspace();
  other = await h.workspace('Other');
  await h.request('POST', '/v1/vector-collections', {
    token: ws.apiKey,
    body: { key: 'random', name: 'Random', dimension: DIM },
  });
  await load(ws.apiKey, 'random', data);
}, 120_000);
afterAll(() => h.close());

describe('approximate search', () => {
  it('runs exactly until the index is built, then approximately with recall@10 >= 0.95', async () => {
    const first = await search({ vector: data[0]!.vector, top_k: 10 });
    expect(first.body.mode).toBe('exact');
    expect(first.body.results.map((r: any) => r.id)).toEqual(exactTop(data[0]!.vector, 10));
    await untilApproximate({ vector: data[0]!.vector, top_k: 10 });
    let found = 0;
    const queries = 40;
    for (let i = 0; i < queries; i++) {
      const q = vec();
      const r = await search({ vector: q, top_k: 10 });
      expect(r.body.mode).toBe('approximate');
      const truth = new Set(exactTop(q, 10));
      found += r.body.results.filter((x: any) => truth.has(x.id)).length;
      const scores = r.body.results.map((x: any) => x.score);
      expect(scores).toEqual([...scores].sort((a: number, b: number) => b - a));
    }
    const recall = found / (queries * 10);
    console.log(`recall@10 over ${queries} queries of ${COUNT} vectors (dimension ${DIM}): ${recall}`);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  }, 120_000);

  it('filtered: never fewer than top_k when enough documents match, however selective', async () => {
    const q = vec();
    const group = await search({ vector: q, top_k: 10, filter: { group: 7 } });
    expect(group.body.mode).toBe('approximate');
    expect(group.body.results).toHaveLength(10);
    expect(group.body.results.every((r: any) => r.metadata.group === 7)).toBe(true);
    expect(group.body.results.map((r: any) => r.id)).toEqual(exactTop(q, 10, (d) => d.metadata.group === 7));

    const rare = await search({ vector: q, top_k: 10, filter: { rare: true } });
    expect(rare.body.results.map((r: any) => r.id).sort()).toEqual(['doc-0', 'doc-1', 'doc-2']);

    const half = await search({ vector: q, top_k: 50, filter: { half: 'odd', group: { gte: 10, lt: 40 } } });
    expect(half.body.results).toHaveLength(50);
    expect(
      half.body.results.every(
        (r: any) => r.metadata.half === 'odd' && r.metadata.group >= 10 && r.metadata.group < 40,
      ),
    ).toBe(true);
    const truth = new Set(
      exactTop(q, 50, (d) => d.metadata.half === 'odd' && d.metadata.group >= 10 && d.metadata.group < 40),
    );
    expect(half.body.results.filter((r: any) => truth.has(r.id)).length).toBeGreaterThanOrEqual(45);

    const inGroups = await search({ vector: q, top_k: 20, filter: { group: { in: [1, 2] } } });
    expect(inGroups.body.results).toHaveLength(20);
    const withMin = await search({ vector: data[5]!.vector, top_k: 10, min_score: 0.999 });
    expect(withMin.body.results.map((r: any) => r.id)).toEqual(['doc-5']);
  });

  it('sees upserts, replacements and deletes at the next search (the index catches up from the database)', async () => {
    const q = vec();
    await load(ws.apiKey, 'random', [{ id: 'fresh', vector: q, metadata: { group: 99 } }]);
    const added = await search({ vector: q, top_k: 3 });
    expect(added.body.mode).toBe('approximate');
    expect(added.body.results[0]).toMatchObject({ id: 'fresh', metadata: { group: 99 } });
    expect(added.body.results[0].score).toBeCloseTo(1, 5);

    await load(ws.apiKey, 'random', [{ id: 'fresh', vector: q.map((x) => -x), metadata: { group: 98 } }]);
    const replaced = await search({ vector: q, top_k: 10 });
    expect(replaced.body.results.map((r: any) => r.id)).not.toContain('fresh');
    const opposite = await search({ vector: q.map((x) => -x), top_k: 1, include_vectors: true });
    expect(opposite.body.results[0]).toMatchObject({ id: 'fresh', metadata: { group: 98 } });
    expect(opposite.body.results[0].vector[0]).toBeCloseTo(-q[0]!, 5);

    const deleted = await h.request('DELETE', '/v1/vector-collections/random/documents', {
      token: ws.apiKey,
      body: { ids: ['fresh', 'doc-0'] },
    });
    expect(deleted.body.deleted).toBe(2);
    const gone = await search({ vector: q.map((x) => -x), top_k: 10 });
    expect(gone.body.results.map((r: any) => r.id)).not.toContain('fresh');
    const rare = await search({ vector: q, top_k: 10, filter: { rare: true } });
    expect(rare.body.results.map((r: any) => r.id).sort()).toEqual(['doc-1', 'doc-2']);
  });

  it("keeps each workspace's index apart, with the same collection key and document IDs", async () => {
    await h.request('POST', '/v1/vector-collections', {
      token: other.apiKey,
      body: { key: 'random', name: 'Theirs', dimension: DIM, metric: 'dot' },
    });
    // The other workspace stores the same IDs with opposite vectors.
    const theirs = data
      .slice(0, 600)
      .map((d) => ({ ...d, vector: d.vector.map((x) => -x), metadata: { owner: 'other' } }));
    await load(other.apiKey, 'random', theirs);
    const q = data[10]!.vector;
    const r = await untilApproximate({ vector: q, top_k: 5 }, other.apiKey);
    expect(r.body.metric).toBe('dot');
    expect(r.body.results.every((x: any) => x.metadata.owner === 'other')).toBe(true);
    expect(r.body.results.map((x: any) => x.id)).not.toContain('doc-10');
    const mine = await search({ vector: q, top_k: 1 });
    expect(mine.body.results[0].id).toBe('doc-10');
    expect(mine.body.results[0].metadata.owner).toBeUndefined();
  }, 120_000);
});
