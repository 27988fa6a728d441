import type pg from 'pg';
import {
  type RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';

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
 * Where rate-limiter-flexible keeps counts: a limiter of `points` per minute under `keyPrefix`, in this
 * process's memory or in PostgreSQL (shared by every node over one database).
 */
export type LimiterStore = (points: number, keyPrefix: string) => RateLimiterAbstract;

export const memoryStore: LimiterStore = (points, keyPrefix) =>
  new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });

/** Counts shared by every node over one PostgreSQL database (table wos_rate_limits, see migration 0007). */
export function postgresStore(pool: pg.Pool): LimiterStore {
  return (points, keyPrefix) =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: 'pool',
      tableName: 'wos_rate_limits',
      tableCreated: true,
      points,
      duration: WINDOW_SECONDS,
      keyPrefix,
    });
}

/** Backed by rate-limiter-flexible over the given store; counts are keyed "<limit>:<workspace_id>". */
export function createRateLimiter(store: LimiterStore = memoryStore): RateLimiter {
  // One limiter per distinct limit: workspaces may have their own limits.
  const limiters = new Map<number, RateLimiterAbstract>();
  return {
    async consume(workspaceId, limitPerMinute) {
      let limiter = limiters.get(limitPerMinute);
      if (!limiter) {
        limiter = store(limitPerMinute, String(limitPerMinute));
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

/** Headers of the IETF RateLimit draft: RateLimit-Policy and RateLimit. */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': `"workspace";q=${outcome.limit};w=${WINDOW_SECONDS}`,
    ratelimit: `"workspace";r=${outcome.remaining};t=${outcome.resetSeconds}`,
  };
  if (!outcome.allowed) headers['retry-after'] = String(outcome.resetSeconds);
  return headers;
}
