import type { OutboundResponse } from '../../core/outbound-url.ts';

const MAX_WAIT_MS = 24 * 60 * 60 * 1000;

/**
 * Delay before the next attempt after `attemptsMade` attempts, or undefined when the schedule is used up.
 * Each step gets up to 10% of random jitter (never earlier than the schedule), and a Retry-After the
 * receiver sent is honoured: the wait is at least that long (capped at 24 hours).
 */
export function nextDelayMs(
  schedule: number[],
  attemptsMade: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  const base = schedule[attemptsMade - 1];
  if (base === undefined) return undefined;
  const jittered = base + Math.floor(base * 0.1 * random());
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, MAX_WAIT_MS));
}

/** Retry-After as seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return undefined;
  if (/^\d+$/.test(text.trim())) return Number(text.trim()) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

export interface AttemptOutcome {
  code: number | null;
  succeeded: boolean;
  /** The receiver said the target no longer exists: no retry, and the caller disables it. */
  gone: boolean;
  error: string | null;
  /** When to try again, or null when the delivery is finished. */
  next: string | null;
  status: 'succeeded' | 'pending' | 'failed';
}

/**
 * What one delivery attempt (a webhook or a notification) means: only 2xx succeeds; a `goneCodes` answer
 * ends it; anything else retries on the schedule, honouring Retry-After, until the schedule is used up.
 */
export function attemptOutcome(
  response: Pick<OutboundResponse, 'statusCode' | 'error' | 'headers'>,
  attempt: number,
  schedule: number[],
  started: Date,
  goneCodes: number[],
): AttemptOutcome {
  const code = response.statusCode;
  const succeeded = code !== null && code >= 200 && code < 300;
  const gone = code !== null && goneCodes.includes(code);
  const error = succeeded
    ? null
    : (response.error ?? `the endpoint answered ${code}${code === 410 ? ' Gone' : ''}`);
  const delay =
    succeeded || gone
      ? undefined
      : nextDelayMs(schedule, attempt, parseRetryAfter(response.headers['retry-after'], started));
  const next = delay === undefined ? null : new Date(started.getTime() + delay).toISOString();
  return {
    code,
    succeeded,
    gone,
    error,
    next,
    status: succeeded ? 'succeeded' : next ? 'pending' : 'failed',
  };
}
