// The allowed origins of an Analytics Site: how they are written (normalized once, on create and update) and
// how a browser's Origin header matches them (at ingest). docs/contract.md, "Analytics Sites (issue 11)".
import type { FieldError } from '../../core/errors.ts';
import { canonicalOrigin, parseOrigin } from '../../core/origins.ts';

const WILDCARD = /^([a-z][a-z0-9+.-]*:\/\/)\*\./i;
/** A label the wildcard stands in for while the origin rules check the rest of the host. */
const PLACEHOLDER = 'wildcard-label.';

/**
 * An origin as stored: `scheme://host[:port]` as browsers send Origin (`canonicalOrigin`: host lower-cased,
 * IDN as punycode, the scheme's default port dropped; a path, user, percent-encoding or padded port
 * refused); or `scheme://*.domain[:port]`, which matches subdomains of domain at any depth but not domain
 * itself. Returns the stored form, or the reason it is refused.
 */
export function normalizeOrigin(value: string): { origin: string } | { error: string } {
  const trimmed = value.trim();
  const wildcard = WILDCARD.exec(trimmed);
  const text = wildcard ? `${wildcard[1]}${PLACEHOLDER}${trimmed.slice(wildcard[0].length)}` : trimmed;
  if (text.includes('*')) {
    return { error: 'may use * only as the first label, as in https://*.example.com' };
  }
  const result = canonicalOrigin(text);
  if ('error' in result || !wildcard) return result;
  const url = new URL(result.origin);
  const domain = url.hostname.slice(PLACEHOLDER.length);
  // *.com or *.1.2.3 would open a whole top-level domain or an address range to one site's key.
  if (!url.hostname.startsWith(PLACEHOLDER) || !domain.includes('.') || /^[\d.]+$/.test(domain)) {
    return { error: 'a wildcard needs a domain of two labels or more, as in https://*.example.com' };
  }
  const port = url.port ? `:${url.port}` : '';
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
 * subdomain of a wildcard's domain with the same scheme and port. Only an Origin exactly as browsers
 * serialize it can match (`parseOrigin`): `null`, a path, a trailing slash, percent-encoding or a padded
 * port never do, so no grant echoes such a header.
 */
export function originAllowed(allowed: readonly string[], header: string | undefined): boolean {
  const origin = parseOrigin(header);
  if (!origin) return false;
  const port = origin.port ? `:${origin.port}` : '';
  return allowed.some((entry) => {
    if (entry === origin.serialized) return true;
    const star = entry.indexOf('//*.');
    if (star < 0) return false;
    const scheme = entry.slice(0, star);
    const rest = entry.slice(star + 4);
    const colon = rest.indexOf(':');
    const domain = colon < 0 ? rest : rest.slice(0, colon);
    const entryPort = colon < 0 ? '' : rest.slice(colon);
    return (
      scheme === origin.protocol &&
      entryPort === port &&
      origin.hostname.length > domain.length + 1 &&
      origin.hostname.endsWith(`.${domain}`)
    );
  });
}
