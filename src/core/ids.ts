import { monotonicFactory } from 'ulid';

const nextUlid = monotonicFactory();

/** Opaque, type-prefixed, time-ordered ID (prefix_ULID): sorting IDs sorts records by creation. */
export function newId(prefix: string): string {
  return `${prefix}_${nextUlid()}`;
}
