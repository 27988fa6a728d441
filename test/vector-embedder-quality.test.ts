// The built-in embedder's retrieval quality on a small labelled set (test/fixtures/vector-embedder-quality.json),
// measured the way search_vector_collection ranks (cosine over the embeddings). It is lexical: questions that
// share words or stems with their answer are found; paraphrases without shared words mostly are not. The
// figures are printed and quoted in docs/modules/vectors.md; the bounds keep a regression from passing.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { builtinEmbedding } from '../src/modules/data-agents/vectors/builtin-embedder.ts';
import { dot } from '../src/modules/data-agents/vectors/vector-math.ts';

interface LabelledSet {
  documents: { id: string; text: string }[];
  queries: { query: string; answer: string; kind: 'lexical' | 'semantic' }[];
}
const set = JSON.parse(
  fs.readFileSync(new URL('./fixtures/vector-embedder-quality.json', import.meta.url), 'utf8'),
) as LabelledSet;

function measure(dimension: number, kind: 'lexical' | 'semantic') {
  const docs = set.documents.map((d) => ({ id: d.id, vector: builtinEmbedding(d.text, dimension) }));
  const queries = set.queries.filter((q) => q.kind === kind);
  let top1 = 0;
  let top5 = 0;
  let reciprocal = 0;
  for (const q of queries) {
    const v = builtinEmbedding(q.query, dimension);
    const ranked = docs.map((d) => ({ id: d.id, score: dot(v, d.vector) })).sort((a, b) => b.score - a.score);
    const rank = ranked.findIndex((d) => d.id === q.answer) + 1;
    if (rank === 1) top1++;
    if (rank <= 5) top5++;
    reciprocal += 1 / rank;
  }
  const n = queries.length;
  return { queries: n, recallAt1: top1 / n, recallAt5: top5 / n, mrr: reciprocal / n };
}

describe('the built-in embedder', () => {
  it('is deterministic and L2-normalized', () => {
    const a = builtinEmbedding('Reset your password', 384);
    expect(Array.from(a)).toEqual(Array.from(builtinEmbedding('Reset your password', 384)));
    expect(dot(a, a)).toBeCloseTo(1, 5);
    expect(Array.from(builtinEmbedding('', 8))).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('finds answers sharing words with the question, and mostly misses paraphrases (it is lexical)', () => {
    for (const dimension of [128, 384, 1024]) {
      const lexical = measure(dimension, 'lexical');
      const semantic = measure(dimension, 'semantic');
      console.log(
        `builtin dimension ${dimension}: lexical ${JSON.stringify(lexical)} semantic ${JSON.stringify(semantic)}`,
      );
      expect(lexical.recallAt5).toBeGreaterThanOrEqual(0.95);
      expect(lexical.mrr).toBeGreaterThanOrEqual(0.9);
    }
  });
});
