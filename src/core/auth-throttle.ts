// Failed authentication is throttled per client address, so guessing tokens from one address is slow
// and noisy. Only a presented credential that is rejected counts; a missing or malformed Authorization
// header does not. Valid credentials from a throttled address keep working (a shared NAT address must not
// lock its honest users out), so the check runs after the credential lookup.
import { RateLimiterRes } from 'rate-limiter-flexible';
import { type ErrorCode, fail, ServiceError } from './errors.ts';
import type { LimiterStore } from './rate-limit.ts';
import { bearerToken } from './tokens.ts';

/** Rejected credentials one address may present per minute before the next ones answer 429. */
export const AUTH_FAILURES_PER_MINUTE = 20;

// workspace_not_found: unknown or revoked token, deleted workspace (REST, MCP);
// authentication_required with a Bearer token: not the operator token (/admin/v1).
const COUNTED: ReadonlySet<ErrorCode> = new Set(['workspace_not_found', 'authentication_required']);

export interface AuthThrottle {
  /**
   * Runs an authentication. When it rejects a presented Bearer token, the failure counts against the
   * address; past the limit the rejection becomes 429 rate_limited until the minute's window ends.
   */
  guard<T>(address: string, authorization: string | undefined, authenticate: () => Promise<T>): Promise<T>;
}

export function createAuthThrottle(store: LimiterStore): AuthThrottle {
  const failures = store(AUTH_FAILURES_PER_MINUTE, 'auth');
  return {
    async guard(address, authorization, authenticate) {
      try {
        return await authenticate();
      } catch (thrown) {
        if (!(thrown instanceof ServiceError) || !COUNTED.has(thrown.code) || !bearerToken(authorization))
          throw thrown;
        try {
          await failures.consume(address);
        } catch (rejection) {
          if (!(rejection instanceof RateLimiterRes)) throw rejection;
          throw fail('rate_limited', {
            message:
              'Too many failed authentication attempts from this address; retry after retry_after_seconds.',
            retry_after_seconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
          });
        }
        throw thrown;
      }
    },
  };
}
