import pg from 'pg';
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

/**
 * Limits calls per workspace and minute, across all its credentials. A call consumes `cost` points of the
 * minute's budget: its operation's declared usage units (at least 1, at most the whole budget, so that a
 * costly operation still runs once a minute).
 */
export interface RateLimiter {
  consume(workspaceId: string, limitPerMinute: number, cost?: number): Promise<RateLimitOutcome>;
}

const WINDOW_SECONDS = 60;

/**
 * Where rate-limiter-flexible keeps counts: a limiter of `points` per minute under `keyPrefix`, in this
 * process's memory or in PostgreSQL (shared by every node over one database).
 */
export type LimiterStore = (points: number, keyPrefix: string) => RateLimiterAbstract;

export const memoryStore: LimiterStore = (points, keyPrefix) =>
  new RateLimiterMemory({ points, duration: WINDOW_SECONDS, keyPrefix });

/**
 * The limiter's own connections: its counts commit without waiting for the WAL flush (synchronous_commit
 * off), so a call no longer pays a second fsync for its count. A crash of the database may forget the last
 * few hundred milliseconds of counts, which only lets a few more calls through; no acknowledged write of a
 * call depends on them. Few connections: each count is one short statement.
 */
export function openLimiterPool(databaseUrl: string, schema: string | undefined): pg.Pool {
  const options = ['-c synchronous_commit=off', ...(schema ? [`-c search_path=${schema}`] : [])];
  return new pg.Pool({ connectionString: databaseUrl, max: LIMITER_CONNECTIONS, options: options.join(' ') });
}

const LIMITER_CONNECTIONS = 3;

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
    async consume(workspaceId, limitPerMinute, cost = 1) {
      let limiter = limiters.get(limitPerMinute);
      if (!limiter) {
        limiter = store(limitPerMinute, String(limitPerMinute));
        limiters.set(limitPerMinute, limiter);
      }
      try {
        const points = Math.min(limitPerMinute, Math.max(1, Math.ceil(cost)));
        const res = await limiter.consume(workspaceId, points);
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
