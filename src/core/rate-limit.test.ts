import { RateLimiterMemory } from 'rate-limiter-flexible';
import { describe, expect, it } from 'vitest';
import { createRateLimiter, type LimiterStore, rateLimitHeaders } from './rate-limit.ts';

describe('rate limiter', () => {
  it('counts per workspace and refuses past the limit with a reset time', async () => {
    const limiter = createRateLimiter();
    expect((await limiter.consume('ws_a', 2)).remaining).toBe(1);
    expect((await limiter.consume('ws_a', 2)).allowed).toBe(true);
    const refused = await limiter.consume('ws_a', 2);
    expect(refused.allowed).toBe(false);
    expect(refused.resetSeconds).toBeGreaterThan(0);
    expect((await limiter.consume('ws_b', 2)).allowed).toBe(true);
    expect(rateLimitHeaders(refused)).toEqual({
      'ratelimit-policy': '"workspace";q=2;w=60',
      ratelimit: `"workspace";r=0;t=${refused.resetSeconds}`,
      'retry-after': String(refused.resetSeconds),
    });
  });
  it('takes shared counts in leases, never passing the limit across nodes', async () => {
    // One shared store (as the PostgreSQL table is), two nodes each with its own leases.
    const shared = new RateLimiterMemory({ points: 1000, duration: 60, keyPrefix: 'shared' });
    let roundTrips = 0;
    const store: LimiterStore = () =>
      new Proxy(shared, {
        get: (target, name) =>
          name === 'consume'
            ? (key: string, points: number) => {
                roundTrips++;
                return target.consume(key, points);
              }
            : Reflect.get(target, name),
      });
    const nodes = [createRateLimiter(store, { leases: true }), createRateLimiter(store, { leases: true })];
    let allowed = 0;
    let refused = 0;
    for (let call = 0; call < 1200; call++) {
      const outcome = await nodes[call % 2]!.consume('ws_a', 1000, call % 10 === 0 ? 3 : 1);
      if (outcome.allowed) allowed += call % 10 === 0 ? 3 : 1;
      else refused++;
    }
    expect(allowed).toBeLessThanOrEqual(1000);
    // Leases shrink as the budget runs out: at most a few points are left unused on each node.
    expect(allowed).toBeGreaterThanOrEqual(990);
    expect(refused).toBeGreaterThan(0);
    // Far fewer round trips than calls; refusals after the budget ran out cost none.
    expect(roundTrips).toBeLessThan(400);
    // A limit under 200 is counted call by call.
    const exact = createRateLimiter(store, { leases: true });
    roundTrips = 0;
    await exact.consume('ws_b', 100);
    await exact.consume('ws_b', 100);
    expect(roundTrips).toBe(2);
  });
});
