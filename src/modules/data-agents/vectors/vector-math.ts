// Vectors as stored (float32 little-endian bytes) and scored. Scores are "higher is better" for every
// metric: cosine similarity, dot product, and minus the euclidean distance.
import type { VectorMetric } from './vector-tables.ts';

export function encodeVector(values: ArrayLike<number>): Buffer {
  const buffer = Buffer.alloc(values.length * 4);
  for (let i = 0; i < values.length; i++) buffer.writeFloatLE(values[i]!, i * 4);
  return buffer;
}

/** The stored bytes as floats (a Buffer from pg or better-sqlite3, a Uint8Array from the read workers). */
export function decodeVector(bytes: Uint8Array): Float32Array {
  if (bytes.byteOffset % 4 === 0)
    return new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  // A copy (Buffer#slice would be a view of the whole pooled buffer): the bytes start unaligned.
  return new Float32Array(new Uint8Array(bytes).buffer);
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export function norm(a: ArrayLike<number>): number {
  return Math.sqrt(dot(a, a));
}

/** A scorer for one query: the query's norm is computed once. */
export function scorer(metric: VectorMetric, query: ArrayLike<number>): (v: ArrayLike<number>) => number {
  if (metric === 'dot') return (v) => dot(query, v);
  if (metric === 'euclidean') {
    return (v) => {
      let sum = 0;
      for (let i = 0; i < query.length; i++) {
        const d = query[i]! - v[i]!;
        sum += d * d;
      }
      return -Math.sqrt(sum);
    };
  }
  const queryNorm = norm(query);
  return (v) => {
    const denominator = queryNorm * norm(v);
    return denominator === 0 ? 0 : dot(query, v) / denominator;
  };
}

/** A bounded list of the best `k` hits, best first (insertion into a short sorted array). */
export class TopK<T> {
  readonly items: { score: number; item: T }[] = [];
  constructor(private readonly k: number) {}
  get worst(): number {
    return this.items.length < this.k ? -Infinity : this.items[this.items.length - 1]!.score;
  }
  offer(score: number, item: T): void {
    if (this.items.length >= this.k && score <= this.worst) return;
    let i = this.items.length;
    while (i > 0 && this.items[i - 1]!.score < score) i--;
    this.items.splice(i, 0, { score, item });
    if (this.items.length > this.k) this.items.pop();
  }
}
