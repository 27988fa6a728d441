import { describe, expect, it } from 'vitest';
import { chunks } from './app-event-store.ts';

describe('chunks', () => {
  it('keeps the rows in order in 500-row statements, then powers of two', () => {
    const rows = Array.from({ length: 1_000 + 300 }, (_, i) => i);
    const parts = chunks(rows);
    expect(parts.map((part) => part.length)).toEqual([500, 500, 256, 32, 8, 4]);
    expect(parts.flat()).toEqual(rows);
    expect(chunks([])).toEqual([]);
    expect(chunks([7]).map((part) => part.length)).toEqual([1]);
  });

  it('uses at most ten row counts whatever the batch size', () => {
    const counts = new Set<number>();
    for (let n = 1; n <= 1_000; n++)
      for (const part of chunks(Array.from({ length: n }))) counts.add(part.length);
    expect(counts.size).toBeLessThanOrEqual(10);
  });
});
