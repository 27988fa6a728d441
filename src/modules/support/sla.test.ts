import { describe, expect, it } from 'vitest';
import { addMinutes, clockState, clocksAfterMessage, slaBlock } from './sla.ts';

const T0 = '2026-11-21T12:00:00.000Z';
const at = (minutes: number) => addMinutes(T0, minutes)!;
const fresh = {
  first_response_due_at: at(30),
  first_responded_at: null,
  next_response_due_at: null,
  next_responded_at: null,
  resolution_due_at: at(240),
  resolved_at: null,
};

describe('SLA clocks', () => {
  it('reads null without a target, pending before the due time, breached after, met when done in time', () => {
    expect(clockState(null, null, at(999))).toBeNull();
    expect(clockState(at(30), null, at(30))).toBe('pending');
    expect(clockState(at(30), null, at(31))).toBe('breached');
    expect(clockState(at(30), at(30), at(999))).toBe('met');
    expect(clockState(at(30), at(31), at(31))).toBe('breached');
  });

  it('summarizes the clocks with a breached flag', () => {
    expect(slaBlock(fresh, at(10))).toEqual({
      first_response: 'pending',
      next_response: null,
      resolution: 'pending',
      breached: false,
    });
    expect(slaBlock(fresh, at(45)).breached).toBe(true);
  });

  it('moves the clocks on messages', () => {
    expect(clocksAfterMessage(fresh, 'inbound', 60, at(5))).toEqual({});
    expect(clocksAfterMessage(fresh, 'outbound', 60, at(5))).toEqual({ first_responded_at: at(5) });
    const replied = { ...fresh, first_responded_at: at(5) };
    expect(clocksAfterMessage(replied, 'inbound', 60, at(10))).toEqual({
      next_response_due_at: at(70),
      next_responded_at: null,
    });
    expect(clocksAfterMessage(replied, 'inbound', null, at(10))).toEqual({});
    const waiting = { ...replied, next_response_due_at: at(70) };
    expect(clocksAfterMessage(waiting, 'inbound', 60, at(20))).toEqual({});
    expect(clocksAfterMessage(waiting, 'outbound', 60, at(20))).toEqual({ next_responded_at: at(20) });
    const answered = { ...waiting, next_responded_at: at(20) };
    expect(clocksAfterMessage(answered, 'outbound', 60, at(25))).toEqual({});
    expect(clocksAfterMessage(answered, 'inbound', 60, at(30))).toEqual({
      next_response_due_at: at(90),
      next_responded_at: null,
    });
  });
});
