// Outbound HTTP for webhooks and web push, guarded against SSRF: http(s) only, ports 80 and 443 (plus any
// the operator allows), and every address a host resolves to must be public, checked when a URL is saved
// and again on every send. The send pins the connection to the addresses it checked (custom lookup), so DNS
// rebinding between check and connect fails.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Config } from '../config.ts';

export class OutboundRefused extends Error {}

const V4_BLOCKED: [string, number][] = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved and broadcast
];
const V6_BLOCKED: [string, number][] = [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001::', 32], // Teredo tunnels hide an IPv4 address
  ['2001:db8::', 32], // documentation
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates to addresses of the operator's own network
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];
const v4List = new net.BlockList();
for (const [address, prefix] of V4_BLOCKED) v4List.addSubnet(address, prefix, 'ipv4');
const v6List = new net.BlockList();
for (const [address, prefix] of V6_BLOCKED) v6List.addSubnet(address, prefix, 'ipv6');

/** The eight 16-bit words of an IPv6 address (with :: expanded and a dotted IPv4 tail converted). */
export function ipv6Words(address: string): number[] {
  let text = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const middle = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...middle, ...right].map((word) => Number.parseInt(word, 16));
}

function v4FromWords(high: number, low: number): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

const NOT_PUBLIC = 'a loopback, private, link-local or reserved address';

/** Why an address may not be called ("<address> is ..."), or undefined for a public unicast address. */
export function addressProblem(address: string): string | undefined {
  const family = net.isIP(address);
  if (family === 4) return v4List.check(address, 'ipv4') ? `${address} is ${NOT_PUBLIC}` : undefined;
  if (family !== 6) return `${address} is not an IP address`;
  const words = ipv6Words(address);
  const zeros = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zeros(0, 5) && words[5] === 0xffff) return `${address} is an IPv4-mapped IPv6 address`;
  if (zeros(0, 6) && !(words[6] === 0 && words[7]! <= 1))
    return `${address} is an IPv4-compatible IPv6 address`;
  const embedded =
    words[0] === 0x64 && words[1] === 0xff9b && zeros(2, 6)
      ? v4FromWords(words[6]!, words[7]!)
      : words[0] === 0x2002
        ? v4FromWords(words[1]!, words[2]!)
        : undefined;
  if (embedded) return addressProblem(embedded) ? `${address} embeds ${NOT_PUBLIC}` : undefined;
  return v6List.check(address, 'ipv6') ? `${address} is ${NOT_PUBLIC}` : undefined;
}

export type Resolve = (hostname: string) => Promise<{ address: string; family: number }[]>;
const systemResolve: Resolve = (hostname) => dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface OutboundPolicy {
  /** WOS_WEBHOOK_ALLOW_PRIVATE: loopback and private addresses are allowed (local development, tests). */
  allowPrivate: boolean;
  /** WOS_OUTBOUND_ALLOWED_PORTS: ports allowed besides 80 and 443. */
  allowedPorts?: readonly number[];
  resolve?: Resolve;
}

/** The policy the operator configured, for every outbound request (webhooks, web push). */
export function outboundPolicy(
  config: Pick<Config, 'webhookAllowPrivate' | 'outboundAllowedPorts'>,
): OutboundPolicy {
  return { allowPrivate: config.webhookAllowPrivate, allowedPorts: config.outboundAllowedPorts };
}

const STANDARD_PORTS = [80, 443];

/** The port a URL connects to (the scheme's default when none is written). */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/**
 * Parses and checks a URL: http or https, no credentials, and (unless private addresses are allowed) a
 * literal or resolved address that is public. Alternative IPv4 notations (decimal, octal, hex, short)
 * are normalized by the URL parser before the check. Throws OutboundRefused with the reason.
 */
export async function checkOutboundUrl(raw: string, policy: OutboundPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused('is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new OutboundRefused('must use http or https');
  if (url.username || url.password) throw new OutboundRefused('must not contain credentials');
  // Other ports reach internal services (databases, admin consoles) even on public hosts.
  const port = portOf(url);
  if (!STANDARD_PORTS.includes(port) && !policy.allowedPorts?.includes(port)) {
    throw new OutboundRefused(
      `is refused: port ${port} is not allowed (80 and 443 are, and ports the operator allows)`,
    );
  }
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(host)) {
    const problem = addressProblem(host);
    if (problem) throw new OutboundRefused(`is refused: ${problem}`);
    return url;
  }
  let addresses: { address: string }[];
  try {
    addresses = await (policy.resolve ?? systemResolve)(host);
  } catch {
    throw new OutboundRefused(`is refused: the host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new OutboundRefused(`is refused: the host ${host} does not resolve`);
  for (const { address } of addresses) {
    const problem = addressProblem(address);
    if (problem) throw new OutboundRefused(`is refused: ${host} resolves to ${problem}`);
  }
  return url;
}

export interface OutboundRequest {
  url: string;
  headers: Record<string, string>;
  body: string | Buffer;
  timeoutMs: number;
  policy: OutboundPolicy;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  /** HTTP status, or null when no response arrived (refused, timeout, network error). */
  statusCode: number | null;
  headers: http.IncomingHttpHeaders;
  /** The first 200 characters of the response body (at most 1 KiB is read). */
  excerpt: string | null;
  error: string | null;
  durationMs: number;
}

const EXCERPT_BYTES = 1024;
const EXCERPT_CHARS = 200;

/** A POST that never follows redirects, reads little of the answer, and connects only to checked addresses. */
export async function postOutbound(request: OutboundRequest): Promise<OutboundResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = await checkOutboundUrl(request.url, request.policy);
  } catch (thrown) {
    return {
      statusCode: null,
      headers: {},
      excerpt: null,
      error: `URL ${(thrown as Error).message}`,
      durationMs: elapsed(),
    };
  }
  const resolve = request.policy.resolve ?? systemResolve;
  const lookup: net.LookupFunction = (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const problem = request.policy.allowPrivate
          ? undefined
          : addresses.map((a) => addressProblem(a.address)).find(Boolean);
        if (problem || addresses.length === 0) {
          callback(new OutboundRefused(problem ?? 'the host does not resolve'), '', 4);
        } else if ((options as dns.LookupOptions).all) {
          (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
        } else {
          callback(null, addresses[0]!.address, addresses[0]!.family);
        }
      },
      (err) => callback(err, '', 4),
    );
  };
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolvePromise) => {
    let settled = false;
    const finish = (response: Omit<OutboundResponse, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolvePromise({ ...response, durationMs: elapsed() });
    };
    const req = transport.request(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      lookup,
      agent: false,
      signal: request.signal,
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`no response within ${request.timeoutMs / 1000} s`));
    }, request.timeoutMs);
    req.on('error', (err) => finish({ statusCode: null, headers: {}, excerpt: null, error: err.message }));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const done = () => {
        const text = Buffer.concat(chunks).subarray(0, EXCERPT_BYTES).toString('utf8');
        const printable = [...text]
          .map((c) => (c.charCodeAt(0) < 32 || c.charCodeAt(0) === 127 ? ' ' : c))
          .join('');
        const excerpt = printable.replace(/\s+/g, ' ').trim().slice(0, EXCERPT_CHARS);
        finish({
          statusCode: res.statusCode ?? null,
          headers: res.headers,
          excerpt: excerpt || null,
          error: null,
        });
        res.destroy();
      };
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= EXCERPT_BYTES) done();
      });
      res.on('end', done);
      res.on('error', done);
    });
    req.end(request.body);
  });
}
