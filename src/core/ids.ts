import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

// ulid draws one crypto byte per character; drawing them from a pooled buffer keeps the same randomness
// source at a fraction of the system calls (IDs are minted several times per request).
const pool = Buffer.alloc(4096);
let offset = pool.length;
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/** Opaque, type-prefixed, time-ordered ID (prefix_ULID): sorting IDs sorts records by creation. */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid()}`;
}

/** Whether the record with ID `a` was minted before the one with ID `b` (ULIDs sort by creation). */
export function mintedBefore(a: string, b: string): boolean {
  return a.slice(a.indexOf('_') + 1) < b.slice(b.indexOf('_') + 1);
}
