import { randomBytes, timingSafeEqual } from 'node:crypto';
import { sha256Hex } from './canonical-json.ts';

export type TokenKind = 'api_key' | 'mcp_token' | 'operator';

const PREFIX: Record<TokenKind, string> = { api_key: 'wos_sk_', mcp_token: 'wos_mcp_', operator: 'wos_op_' };

/** 32 random bytes, base64url, behind a readable prefix. Only its SHA-256 is ever stored. */
export function generateToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return sha256Hex(token);
}

export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The token of a "Bearer <token>" header, or undefined when the header is absent or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header ?? '');
  return match?.[1];
}
