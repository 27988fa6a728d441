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
