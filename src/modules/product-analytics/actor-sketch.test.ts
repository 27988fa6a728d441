import { describe, expect, it } from 'vitest';
import {
  type ActorSketch,
  actorHash,
  addHashes,
  decodeSketch,
  emptySketch,
  encodeSketch,
  estimate,
  mergeEncoded,
  mergeSketch,
} from './actor-sketch.ts';

const sketchOf = (actors: string[]): ActorSketch => addHashes(emptySketch(), actors.map(actorHash));
const actors = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

describe('actor sketch', () => {
  it('merges a stored sketch as it merges the decoded one', () => {
    for (const [a, b] of [
      [10, 20],
      [300, 400],
      [50, 5000],
      [5000, 60],
      [3000, 9000],
    ] as const) {
      const stored = encodeSketch(sketchOf(actors('s', b)));
      const viaDecode = mergeSketch(sketchOf(actors('t', a)), decodeSketch(stored));
      const inPlace = mergeEncoded(sketchOf(actors('t', a)), stored);
      expect(estimate(inPlace)).toBe(estimate(viaDecode));
      expect(inPlace.kind).toBe(viaDecode.kind);
    }
  });

  it('is exact while sparse, and ignores repeats', () => {
    const sketch = sketchOf([...actors('user_', 300), ...actors('user_', 300)]);
    expect(sketch.kind).toBe('sparse');
    expect(estimate(sketch)).toBe(300);
  });

  it('survives encoding, sparse and dense', () => {
    for (const n of [0, 5, 513, 20_000]) {
      const sketch = sketchOf(actors('a', n));
      const back = decodeSketch(encodeSketch(sketch));
      expect(back.kind).toBe(sketch.kind);
      expect(estimate(back)).toBe(estimate(sketch));
    }
  });

  it('merges days into the union of their actors (overlaps counted once)', () => {
    // 30 days of 2,000 actors each from a pool of 20,000: the union is the whole pool.
    let union = emptySketch();
    for (let day = 0; day < 30; day++) {
      const ids = Array.from({ length: 2000 }, (_, i) => `user_${(day * 1733 + i * 7) % 20_000}`);
      union = mergeSketch(union, decodeSketch(encodeSketch(sketchOf(ids))));
    }
    const exact = new Set<string>();
    for (let day = 0; day < 30; day++)
      for (let i = 0; i < 2000; i++) exact.add(`user_${(day * 1733 + i * 7) % 20_000}`);
    expect(Math.abs(estimate(union) - exact.size) / exact.size).toBeLessThan(0.05);
  });

  // The test set documented in docs/contract.md: relative error at several sizes stays within 3 standard
  // errors (4.9%) of HyperLogLog with 4,096 registers.
  it('estimates within a few percent on the documented test set', () => {
    for (const n of [600, 2_000, 10_000, 50_000, 200_000]) {
      const error = Math.abs(estimate(sketchOf(actors(`set${n}_`, n))) - n) / n;
      expect(error).toBeLessThan(0.049);
    }
  });

  it('merges dense registers as the larger of each pair, from stored bytes at any offset', () => {
    // Registers 0..21 (every rank a register can hold), merged four to a word: each byte must be max(a, b).
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % 22;
    };
    const a = Array.from({ length: 4096 }, next);
    const b = Array.from({ length: 4096 }, next);
    a[0] = 21;
    b[1] = 21;
    const stored = (registers: number[], offset: number) =>
      Buffer.from([...Array(offset).fill(9), 1, ...registers]).subarray(offset);
    for (const offset of [0, 1, 2, 3]) {
      const merged = mergeEncoded(decodeSketch(stored(a, 0)), stored(b, offset));
      expect(merged.kind).toBe('dense');
      const registers = [...(merged as { registers: Uint8Array }).registers];
      expect(registers).toEqual(a.map((value, i) => Math.max(value, b[i]!)));
      const viaDecode = mergeSketch(decodeSketch(stored(b, 0)), decodeSketch(stored(a, offset)));
      expect([...(viaDecode as { registers: Uint8Array }).registers]).toEqual(registers);
    }
  });

  it('a sparse sketch merged into a dense one, and the reverse, agree', () => {
    const big = sketchOf(actors('x', 5000));
    const small = sketchOf(actors('y', 100));
    const one = mergeSketch(sketchOf(actors('x', 5000)), small);
    const two = mergeSketch(sketchOf(actors('y', 100)), big);
    expect(estimate(one)).toBe(estimate(two));
  });
});
