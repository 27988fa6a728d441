// The allowed origins of an Analytics Site: how they are written (normalized once, on create and update) and
// how a browser's Origin header matches them (at ingest). docs/contract.md, "Analytics Sites (issue 11)".
import type { FieldError } from '../../core/errors.ts';

const SCHEME = /^([a-z][a-z0-9+.-]*):\/\/(.*)$/i;
const WILDCARD = '*.';
/** A label the wildcard stands in for while the URL parser checks the rest of the host. */
const PLACEHOLDER = 'wildcard-label.';

/**
 * An origin as stored: `scheme://host[:port]` with the host lower-cased (IDN as punycode) and the scheme's
 * default port dropped, as browsers send Origin; or `scheme://*.domain[:port]`, which matches subdomains
 * of domain at any depth but not domain itself. Only http and https; no path, query, fragment or user.
 * Returns the stored form, or the reason it is refused.
 */
export function normalizeOrigin(value: string): { origin: string } | { error: string } {
  const match = SCHEME.exec(value.trim());
  if (!match) return { error: 'must be an origin such as https://app.example.com' };
  const [, scheme, rest] = match as unknown as [string, string, string];
  if (!['http', 'https'].includes(scheme.toLowerCase())) return { error: 'must use http or https' };
  if (/[/?#@\\]/.test(rest)) return { error: 'must be scheme://host[:port] only: no path, query or user' };
  const wildcard = rest.startsWith(WILDCARD);
  const hostPart = wildcard ? PLACEHOLDER + rest.slice(WILDCARD.length) : rest;
  if (hostPart.includes('*')) {
    return { error: 'may use * only as the first label, as in https://*.example.com' };
  }
  let url: URL;
  try {
    url = new URL(`${scheme}://${hostPart}`);
  } catch {
    return { error: 'is not a valid origin' };
  }
  const port = url.port ? `:${url.port}` : '';
  if (!wildcard) return { origin: `${url.protocol}//${url.hostname}${port}` };
  const domain = url.hostname.slice(PLACEHOLDER.length);
  // *.com or *.1.2.3 would open a whole top-level domain or an address range to one site's key.
  if (!domain.includes('.') || /^[\d.]+$/.test(domain) || url.hostname.startsWith('[')) {
    return { error: 'a wildcard needs a domain of two labels or more, as in https://*.example.com' };
  }
  return { origin: `${url.protocol}//*.${domain}${port}` };
}

/** The stored forms of a list of origins (duplicates after normalizing dropped), or its field errors. */
export function normalizeOrigins(
  values: readonly string[],
  field = 'allowed_origins',
): { origins: string[]; errors: FieldError[] } {
  const origins: string[] = [];
  const errors: FieldError[] = [];
  values.forEach((value, i) => {
    const result = normalizeOrigin(value);
    if ('error' in result) errors.push({ field: `${field}[${i}]`, message: result.error });
    else if (!origins.includes(result.origin)) origins.push(result.origin);
  });
  return { origins, errors };
}

/**
 * Whether a request's Origin header is one of the allowed origins: the same scheme, host and port, or a
 * subdomain of a wildcard's domain with the same scheme and port. `null` and malformed Origins never match.
 */
export function originAllowed(allowed: readonly string[], origin: string | undefined): boolean {
  if (!origin) return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  const port = url.port ? `:${url.port}` : '';
  const exact = `${url.protocol}//${url.hostname}${port}`;
  return allowed.some((entry) => {
    if (entry === exact) return true;
    const star = entry.indexOf('//*.');
    if (star < 0) return false;
    const scheme = entry.slice(0, star);
    const rest = entry.slice(star + 4);
    const colon = rest.indexOf(':');
    const domain = colon < 0 ? rest : rest.slice(0, colon);
    const entryPort = colon < 0 ? '' : rest.slice(colon);
    return (
      scheme === url.protocol &&
      entryPort === port &&
      url.hostname.length > domain.length + 1 &&
      url.hostname.endsWith(`.${domain}`)
    );
  });
}
