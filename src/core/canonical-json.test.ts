import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.ts';

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[2,{"y":2,"z":1}]},"b":1}',
    );
  });
  it('gives equal text for equal inputs in another key order', () => {
    expect(canonicalJson({ name: 'A', email: 'a@x.io' })).toBe(canonicalJson({ email: 'a@x.io', name: 'A' }));
  });
});
