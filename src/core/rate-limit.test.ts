import { describe, expect, it } from 'vitest';
import { createRateLimiter, rateLimitHeaders } from './rate-limit.ts';

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
});
