import { describe, expect, it } from 'vitest';
import { bearerToken, generateToken, hashesEqual, hashToken } from './tokens.ts';

describe('tokens', () => {
  it('are 32 random bytes behind a readable prefix', () => {
    const key = generateToken('api_key');
    expect(key).toMatch(/^wos_sk_[A-Za-z0-9_-]{43}$/);
    expect(generateToken('mcp_token')).toMatch(/^wos_mcp_/);
    expect(generateToken('operator')).toMatch(/^wos_op_/);
    expect(generateToken('api_key')).not.toBe(key);
  });

  it('are stored as SHA-256 and compared in constant time', () => {
    const hash = hashToken('wos_sk_abc');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hashesEqual(hash, hashToken('wos_sk_abc'))).toBe(true);
    expect(hashesEqual(hash, hashToken('wos_sk_abd'))).toBe(false);
  });

  it('are read only from well-formed Bearer headers', () => {
    expect(bearerToken('Bearer wos_sk_x')).toBe('wos_sk_x');
    expect(bearerToken('bearer wos_sk_x')).toBe('wos_sk_x');
    expect(bearerToken('Basic abc')).toBeUndefined();
    expect(bearerToken('Bearer')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
