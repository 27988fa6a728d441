// Web origins, read strictly: a request's Origin header counts only when it is an origin exactly as
// browsers serialize it, and an origin an operator or a site stores is written in that form. Browsers never
// send a path, a trailing slash, user info, percent-encoding, upper case or a zero-padded or default port,
// so such a header comes from a script outside a browser and never matches a grant (nor is echoed by one).

/** A request's Origin as browsers send it (http or https). */
export interface RequestOrigin {
  /** `http:` or `https:`. */
  protocol: string;
  /** Lower case; IDN as punycode; an IPv6 address in brackets. */
  hostname: string;
  /** Empty for the scheme's default port. */
  port: string;
  /** The header itself: `scheme://host[:port]`. */
  serialized: string;
}

const isWebScheme = (protocol: string) => protocol === 'http:' || protocol === 'https:';

/**
 * The Origin header's origin, or undefined when the header is missing, `null`, another scheme, or anything
 * but the serialization browsers send (the URL parser's `origin` of the header is the header itself).
 */
export function parseOrigin(header: string | undefined): RequestOrigin | undefined {
  if (!header) return undefined;
  let url: URL;
  try {
    url = new URL(header);
  } catch {
    return undefined;
  }
  if (!isWebScheme(url.protocol) || url.origin !== header) return undefined;
  return { protocol: url.protocol, hostname: url.hostname, port: url.port, serialized: header };
}

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i;
/** The host (a bracketed IPv6 address, or up to the colon) and the port text, if a colon is there. */
const HOST_PORT = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/;
const PORT = /^[1-9]\d{0,4}$/;

/**
 * An origin to store, written as browsers send Origin: `scheme://host[:port]`, http or https, the scheme
 * and host lower-cased (an IDN as punycode) and the scheme's default port dropped, so it compares equal
 * to the headers it should match. Anything else an origin cannot be is refused with the reason: a path
 * (even `/`), query, fragment, user info, a backslash, percent-encoding, an empty, zero or zero-padded
 * port, or a host the URL parser would rewrite (`127.1`, `0x7f.0.0.1`, a tab inside).
 */
export function canonicalOrigin(value: string): { origin: string } | { error: string } {
  const match = SCHEME.exec(value.trim());
  if (!match) return { error: 'must be an origin such as https://app.example.com' };
  const [, scheme, rest] = match as unknown as [string, string, string];
  if (!['http', 'https'].includes(scheme.toLowerCase())) return { error: 'must use http or https' };
  if (/[/?#@\\]/.test(rest)) {
    return { error: 'must be scheme://host[:port] only: no path (not even a trailing /), query or user' };
  }
  if (rest.includes('%')) return { error: 'must not percent-encode its host: write it as browsers send it' };
  const [, host, port] = HOST_PORT.exec(rest) as unknown as [string, string, string | undefined];
  if (port !== undefined && !(PORT.test(port) && Number(port) <= 65535)) {
    return { error: 'must have a port from 1 to 65535 written without leading zeros, or none' };
  }
  let url: URL;
  try {
    url = new URL(`${scheme}://${rest}`);
  } catch {
    return { error: 'is not a valid origin' };
  }
  // ASCII hosts must already be what the parser makes of them (but for case); a non-ASCII one is an IDN,
  // which the parser maps to the punycode browsers send.
  if (!/[\u0080-\uffff]/.test(host) && host.toLowerCase() !== url.hostname) {
    return { error: `has a host browsers send differently: write it as ${url.hostname}` };
  }
  const portPart = url.port ? `:${url.port}` : '';
  return { origin: `${url.protocol}//${url.hostname}${portPart}` };
}

/**
 * A comma-separated list of origins from the environment, each written as `canonicalOrigin` stores it. An
 * entry that is not an origin stops the service at start: a typo would otherwise refuse browsers silently.
 */
export function originList(value: string | undefined, name: string): string[] {
  const origins: string[] = [];
  for (const entry of (value ?? '').split(',')) {
    if (entry.trim() === '') continue;
    const result = canonicalOrigin(entry);
    if ('error' in result) throw new Error(`${name}: "${entry.trim()}" ${result.error}`);
    if (!origins.includes(result.origin)) origins.push(result.origin);
  }
  return origins;
}
