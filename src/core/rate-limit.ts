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

/**
 * A node takes shared counts in leases of at most 1/LEASE_DIVISOR of the limit (MAX_LEASE at most): one
 * round trip per lease instead of one per call. A lease is counted when taken, so the workspace never
 * passes its limit across nodes; points a node leased and did not use by the end of the minute are lost,
 * so a workspace spread over many nodes may get up to that many fewer calls. Leases shrink as the budget
 * runs out, and a limit under LEASE_DIVISOR is counted call by call (exact).
 */
const LEASE_DIVISOR = 200;
const MAX_LEASE = 50;

interface Lease {
  points: number;
  expires: number;
  /** The shared budget left after this lease was taken. */
  remaining: number;
}

/**
 * Backed by rate-limiter-flexible over the given store; counts are keyed "<limit>:<workspace_id>". With
 * `leases` (a store shared by nodes, where each count is a round trip), counts are taken in leases.
 */
export function createRateLimiter(store: LimiterStore = memoryStore, options: { leases?: boolean } = {}) {
  // One limiter per distinct limit: workspaces may have their own limits.
  const limiters = new Map<number, RateLimiterAbstract>();
  const leases = new Map<string, Lease>();
  const pending = new Map<string, Promise<unknown>>();

  const limiterFor = (limit: number) => {
    let limiter = limiters.get(limit);
    if (!limiter) {
      limiter = store(limit, String(limit));
      limiters.set(limit, limiter);
    }
    return limiter;
  };

  /**
   * Takes `points` from the shared count for a call of `cost`; with `lease`, what is beyond the cost (and
   * `carried`, the unused points of the lease it replaces) stays with this node.
   */
  const take = async (workspaceId: string, limit: number, cost: number, points: number, lease?: number) => {
    const key = `${limit}:${workspaceId}`;
    try {
      const res = await limiterFor(limit).consume(workspaceId, points);
      const kept = points - cost + (lease ?? 0);
      if (lease !== undefined) {
        leases.set(key, {
          points: kept,
          expires: Date.now() + res.msBeforeNext,
          remaining: res.remainingPoints,
        });
      }
      return allowed(limit, res.remainingPoints + kept, res.msBeforeNext);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      // The shared count stays past the limit until the window ends (it only grows): refuse here until then.
      if (lease !== undefined) {
        leases.set(key, { points: 0, expires: Date.now() + rejection.msBeforeNext, remaining: 0 });
      }
      return refused(limit, rejection.msBeforeNext);
    }
  };

  const rateLimiter: RateLimiter = {
    async consume(workspaceId, limit, requested = 1) {
      const cost = Math.min(limit, Math.max(1, Math.ceil(requested)));
      const size = options.leases ? Math.min(MAX_LEASE, Math.floor(limit / LEASE_DIVISOR)) : 0;
      if (size === 0) return take(workspaceId, limit, cost, cost);
      const key = `${limit}:${workspaceId}`;
      for (;;) {
        const now = Date.now();
        const lease = leases.get(key);
        const live = lease && lease.expires > now ? lease : undefined;
        if (live && live.points >= cost) {
          live.points -= cost;
          return allowed(limit, live.remaining + live.points, live.expires - now);
        }
        if (live && live.remaining === 0 && live.points === 0) return refused(limit, live.expires - now);
        const inFlight = pending.get(key);
        if (inFlight) {
          await inFlight;
          continue;
        }
        // A new lease: this call's cost plus a share of what is left; a live lease's last points carry over.
        const left = live ? live.remaining : limit;
        const points = cost + Math.min(size, Math.floor(Math.max(0, left - cost) / 4));
        leases.delete(key);
        const taking = take(workspaceId, limit, cost, points, live?.points ?? 0);
        pending.set(key, taking);
        try {
          return await taking;
        } finally {
          pending.delete(key);
        }
      }
    },
  };
  return rateLimiter;
}

const allowed = (limit: number, remaining: number, msBeforeNext: number): RateLimitOutcome => ({
  allowed: true,
  limit,
  remaining: Math.max(0, remaining),
  resetSeconds: Math.ceil(msBeforeNext / 1000),
});

const refused = (limit: number, msBeforeNext: number): RateLimitOutcome => ({
  allowed: false,
  limit,
  remaining: 0,
  resetSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)),
});

/** Headers of the IETF RateLimit draft: RateLimit-Policy and RateLimit. */
export function rateLimitHeaders(outcome: RateLimitOutcome): Record<string, string> {
  const headers: Record<string, string> = {
    'ratelimit-policy': `"workspace";q=${outcome.limit};w=${WINDOW_SECONDS}`,
    ratelimit: `"workspace";r=${outcome.remaining};t=${outcome.resetSeconds}`,
  };
  if (!outcome.allowed) headers['retry-after'] = String(outcome.resetSeconds);
  return headers;
}
