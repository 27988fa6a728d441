import { describe, expect, it } from 'vitest';
import { STANDARD_RETRY_SCHEDULE_MS } from '../../config.ts';
import { nextDelayMs, parseRetryAfter } from './retry.ts';

describe('webhook retry schedule', () => {
  it('follows the Standard Webhooks schedule with up to 10% jitter, then stops', () => {
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 1, undefined, () => 0)).toBe(5000);
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 1, undefined, () => 0.999)).toBe(5499);
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 2, undefined, () => 0)).toBe(300_000);
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 9, undefined, () => 0)).toBe(86_400_000);
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 10, undefined)).toBeUndefined();
  });

  it('waits at least as long as Retry-After asks, capped at a day', () => {
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 1, 120_000, () => 0)).toBe(120_000);
    expect(nextDelayMs(STANDARD_RETRY_SCHEDULE_MS, 2, 1000, () => 0)).toBe(300_000);
    expect(nextDelayMs([1000], 1, 10 * 86_400_000, () => 0)).toBe(86_400_000);
  });

  it('reads Retry-After as seconds or a date', () => {
    const now = new Date('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
