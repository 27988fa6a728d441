// Hybrid ranking shared by workflow discovery, the assistant's plan and the service guide: a vector score
// (the builtin embedder's cosine: lexical, hashed word and character n-grams) plus a keyword score (which
// query terms occur in which field, weighted by how rare each term is), each reported so a caller sees why
// something matched. Nothing here is a language model.
import { builtinEmbedding, words } from '../vectors/builtin-embedder.ts';

export const RANK_DIMENSION = 384;

/** A light stem so invoice / invoices / invoicing meet: plural and common verb endings. */
export function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 4 && /(x|z|ch|sh|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The distinct stemmed terms of a text (stopwords left out; snake_case names split into words). */
export function terms(text: string): string[] {
  return [...new Set(words(text).map(stem))];
}

export function embed(text: string): Float32Array {
  return builtinEmbedding(text, RANK_DIMENSION);
}

export function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot; // both are L2-normalized (or zero)
}

export interface KeywordMatch {
  /** 0..1: the weighted share of the query's terms found, each in its best field. */
  score: number;
  matched_terms: string[];
  matched_fields: string[];
}

/**
 * Which query terms occur in which fields. `weights` ranks fields (a name match counts more than one in a
 * long description); `idf` weights rare terms up (default: every term 1).
 */
export function keywordMatch(
  queryTerms: readonly string[],
  fields: Record<string, ReadonlySet<string>>,
  weights: Record<string, number>,
  idf: (term: string) => number = () => 1,
): KeywordMatch {
  let total = 0;
  let got = 0;
  const matchedTerms: string[] = [];
  const matchedFields = new Set<string>();
  for (const term of queryTerms) {
    const weight = idf(term);
    total += weight;
    let best = 0;
    for (const [field, set] of Object.entries(fields)) {
      if (!set.has(term)) continue;
      matchedFields.add(field);
      best = Math.max(best, weights[field] ?? 1);
    }
    if (best > 0) {
      matchedTerms.push(term);
      got += weight * best;
    }
  }
  return {
    score: total === 0 ? 0 : Math.min(1, got / total),
    matched_terms: matchedTerms,
    matched_fields: [...matchedFields],
  };
}

/** The hybrid score: half vector similarity (clamped at 0), half keyword coverage. */
export function hybridScore(vector: number, keyword: number): number {
  return Math.round((0.5 * Math.max(0, vector) + 0.5 * keyword) * 10_000) / 10_000;
}

export const round4 = (x: number) => Math.round(x * 10_000) / 10_000;

export interface RankedDocument<T> {
  item: T;
  fields: Record<string, ReadonlySet<string>>;
  vector: Float32Array;
}

export interface Ranked<T> {
  item: T;
  score: number;
  vector_score: number;
  keyword_score: number;
  matched_terms: string[];
  matched_fields: string[];
}

/**
 * An in-memory hybrid index over a fixed set of documents (the tools of the registry, the passages of the
 * documentation): built once, searched by brute force (a few thousand vectors of 384 floats).
 */
export class HybridIndex<T> {
  private readonly docs: RankedDocument<T>[] = [];
  private readonly documentFrequency = new Map<string, number>();

  constructor(private readonly weights: Record<string, number>) {}

  add(item: T, fields: Record<string, string>, vectorText: string): void {
    const sets: Record<string, ReadonlySet<string>> = {};
    const all = new Set<string>();
    for (const [field, text] of Object.entries(fields)) {
      const set = new Set(terms(text));
      sets[field] = set;
      for (const t of set) all.add(t);
    }
    for (const t of all) this.documentFrequency.set(t, (this.documentFrequency.get(t) ?? 0) + 1);
    this.docs.push({ item, fields: sets, vector: embed(vectorText) });
  }

  get size(): number {
    return this.docs.length;
  }

  idf = (term: string): number => {
    const n = this.documentFrequency.get(term) ?? 0;
    return Math.log(1 + (this.docs.length + 1) / (n + 0.5));
  };

  search(query: string, topK: number, accept: (item: T) => boolean = () => true): Ranked<T>[] {
    const queryTerms = terms(query);
    const queryVector = embed(query);
    const ranked: Ranked<T>[] = [];
    for (const doc of this.docs) {
      if (!accept(doc.item)) continue;
      const vector = cosine(queryVector, doc.vector);
      const keyword = keywordMatch(queryTerms, doc.fields, this.weights, this.idf);
      const score = hybridScore(vector, keyword.score);
      if (score <= 0) continue;
      ranked.push({
        item: doc.item,
        score,
        vector_score: round4(vector),
        keyword_score: round4(keyword.score),
        matched_terms: keyword.matched_terms,
        matched_fields: keyword.matched_fields,
      });
    }
    ranked.sort((a, b) => b.score - a.score);
    return ranked.slice(0, topK);
  }
}
