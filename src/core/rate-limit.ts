import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/** Limits calls per workspace and minute, across all its credentials. */
export interface RateLimiter {
  consume(workspaceId: string, limitPerMinute: number): Promise<RateLimitOutcome>;
}

const WINDOW_SECONDS = 60;

/**
 * Backed by rate-limiter-flexible. The factory decides the store: in memory for one node; pass a factory
 * building RateLimiterRedis or RateLimiterPostgres to share counts between nodes.
 */
export function createRateLimiter(
  build: (points: number) => RateLimiterAbstract = (points) =>
    new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix: `ws${points}` }),
): RateLimiter {
  // One limiter per distinct limit: workspaces may have their own limits.
  const limiters = new Map<number, RateLimiterAbstract>();
  return {
    async consume(workspaceId, limitPerMinute) {
      let limiter = limiters.get(limitPerMinute);
      if (!limiter) {
        limiter = build(limitPerMinute);
        limiters.set(limitPerMinute, limiter);
      }
      try {
        const res = await limiter.consume(workspaceId);
        return {
          allowed: true,
          limit: limitPerMinute,
          remaining: res.remainingPoints,
          resetSeconds: Math.ceil(res.msBeforeNext / 1000),
        };
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        return {
          allowed: false,
          limit: limitPerMinute,
          remaining: 0,
          resetSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
        };
      }
    },
  };
}

/** Counts shared by every node over one PostgreSQL database (table wos_rate_limits, see migration 0007). */
export function createPostgresRateLimiter(pool: pg.Pool): RateLimiter {
  return createRateLimiter(
    (points) =>
      new RateLimiterPostgres({
        storeClient: pool,
        storeType: 'pool',
        tableName: 'wos_rate_limits',
        tableCreated: true,
        points,
        duration: WINDOW_SECONDS,
        keyPrefix: String(points),
      }),
  );
}

/** Headers of the IETF RateLimit draft: RateLimit-Policy and RateLimit. */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': `"workspace";q=${outcome.limit};w=${WINDOW_SECONDS}`,
    ratelimit: `"workspace";r=${outcome.remaining};t=${outcome.resetSeconds}`,
  };
  if (!outcome.allowed) headers['retry-after'] = String(outcome.resetSeconds);
  return headers;
}
