// Behind a load balancer (WOS_TRUST_PROXY): the failed-authentication throttle counts per client, as the
// trusted proxy names it in X-Forwarded-For, not per balancer; without the setting, or from a sender that is
// not a trusted proxy, X-Forwarded-For is ignored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_FAILURES_PER_MINUTE } from '../src/core/auth-throttle.ts';
import { Harness } from './helpers/harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await Harness.start();
});
afterAll(() => h.close());

/** A request with a bad API key, from `peer` (the TCP sender), with X-Forwarded-For when given. */
async function badKey(peer: string, forwardedFor?: string): Promise<number> {
  const res = await h.service.app.inject({
    method: 'GET',
    url: '/v1/contacts',
    remoteAddress: peer,
    headers: {
      authorization: 'Bearer wos_sk_not-a-key',
      ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}),
    },
  });
  return res.statusCode;
}

/** Uses up a client's failures: the next bad key from it answers 429. */
async function exhaust(peer: string, forwardedFor?: string) {
  for (let i = 0; i < AUTH_FAILURES_PER_MINUTE; i++) expect(await badKey(peer, forwardedFor)).toBe(404);
  expect(await badKey(peer, forwardedFor)).toBe(429);
}

// Each case uses addresses of its own: on PostgreSQL the counts are shared and outlive a restart.
describe('WOS_TRUST_PROXY', () => {
  it('unset: every client behind a balancer is the balancer', async () => {
    await exhaust('10.1.0.1', '203.0.113.1');
    expect(await badKey('10.1.0.1', '203.0.113.2')).toBe(429);
  });

  it('a hop count: each client behind the balancer is counted on its own', async () => {
    h = await h.restart({ trustProxy: 1 });
    await exhaust('10.2.0.1', '203.0.113.11');
    expect(await badKey('10.2.0.1', '203.0.113.12')).toBe(404);
    // Only the hop the balancer added is believed: a client cannot pick its address by sending its own.
    expect(await badKey('10.2.0.1', '198.51.100.1, 203.0.113.11')).toBe(429);
  });

  it('addresses: believed from the listed proxies only', async () => {
    h = await h.restart({ trustProxy: ['10.3.0.0/16'] });
    await exhaust('10.3.0.1', '203.0.113.21');
    expect(await badKey('10.3.0.1', '203.0.113.22')).toBe(404);
    // A sender outside the list is the client itself, whatever it claims.
    expect(await badKey('192.0.2.50', '203.0.113.22')).toBe(404);
    await exhaust('192.0.2.51', '203.0.113.23');
    expect(await badKey('10.3.0.1', '203.0.113.23')).toBe(404);
    // Two trusted hops: the client is the first address a trusted proxy did not add.
    expect(await badKey('10.3.0.2', '203.0.113.21, 10.3.5.5')).toBe(429);
  });
});
