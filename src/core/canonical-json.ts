import crypto from 'node:crypto';

/** JSON with object keys sorted at every depth, so equal inputs give equal text whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.keys(value as Record<string, unknown>)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

// Node 20.12 and later hash a string in one call, with no Hash object to build and collect (every create
// hashes its token and its key's fingerprint); earlier versions build one.
const oneShot = typeof crypto.hash === 'function' ? crypto.hash : undefined;

export function sha256Hex(text: string): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}
