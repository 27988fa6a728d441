// SLA clocks of a support ticket. Due times are set from the queue's targets; each clock reads
// pending, met or breached at a given time (null when the queue sets no target for it).
import { type ExpressionBuilder, sql } from 'kysely';
import type { MessageDirection, SupportQueuesTable, SupportTicketsTable } from './support-tables.ts';

export type SlaState = 'pending' | 'met' | 'breached' | null;

export interface SlaBlock {
  first_response: SlaState;
  next_response: SlaState;
  resolution: SlaState;
  breached: boolean;
}

export function addMinutes(iso: string, minutes: number | null): string | null {
  return minutes === null ? null : new Date(Date.parse(iso) + minutes * 60_000).toISOString();
}

/** One clock: met when done by the due time, breached when done late or still open past it. */
export function clockState(dueAt: string | null, doneAt: string | null, now: string): SlaState {
  if (dueAt === null) return null;
  if (doneAt !== null) return doneAt <= dueAt ? 'met' : 'breached';
  return now > dueAt ? 'breached' : 'pending';
}

type SlaColumns = Pick<
  SupportTicketsTable,
  | 'first_response_due_at'
  | 'first_responded_at'
  | 'next_response_due_at'
  | 'next_responded_at'
  | 'resolution_due_at'
  | 'resolved_at'
>;

export function slaBlock(row: SlaColumns, now: string): SlaBlock {
  const block = {
    first_response: clockState(row.first_response_due_at, row.first_responded_at, now),
    next_response: clockState(row.next_response_due_at, row.next_responded_at, now),
    resolution: clockState(row.resolution_due_at, row.resolved_at, now),
  };
  return { ...block, breached: Object.values(block).includes('breached') };
}

/** Due times of a new ticket, from its queue's targets. */
export function initialDueTimes(queue: SupportQueuesTable, createdAt: string) {
  return {
    first_response_due_at: addMinutes(createdAt, queue.first_response_target_minutes),
    resolution_due_at: addMinutes(createdAt, queue.resolution_target_minutes),
  };
}

/**
 * What a message does to the ticket's clocks: the first outbound message is the first response; an
 * inbound message after a reply starts the next-response clock (unless one is already running); an
 * outbound message stops a running next-response clock.
 */
export function clocksAfterMessage(
  ticket: SlaColumns,
  direction: MessageDirection,
  nextResponseTargetMinutes: number | null,
  now: string,
): Partial<SlaColumns> {
  if (direction === 'outbound') {
    if (ticket.first_responded_at === null) return { first_responded_at: now };
    if (ticket.next_response_due_at !== null && ticket.next_responded_at === null)
      return { next_responded_at: now };
    return {};
  }
  const replied = ticket.first_responded_at !== null;
  const running = ticket.next_response_due_at !== null && ticket.next_responded_at === null;
  if (!replied || running || nextResponseTargetMinutes === null) return {};
  return { next_response_due_at: addMinutes(now, nextResponseTargetMinutes), next_responded_at: null };
}

/** SQL twin of slaBlock(...).breached, for the sla_breached filter and the summary count. */
export function slaBreachedAt(now: string) {
  const clock = (eb: ExpressionBuilder<any, any>, due: string, done: string) =>
    eb.and([
      eb(due, 'is not', null),
      eb.or([
        eb.and([eb(done, 'is', null), eb(due, '<', now)]),
        // Guarded so the expression is never NULL: NOT of it must hold for every unbreached ticket.
        eb.and([eb(done, 'is not', null), eb(done, '>', sql.ref(due))]),
      ]),
    ]);
  return (eb: ExpressionBuilder<any, any>) =>
    eb.or([
      clock(eb, 'first_response_due_at', 'first_responded_at'),
      clock(eb, 'next_response_due_at', 'next_responded_at'),
      clock(eb, 'resolution_due_at', 'resolved_at'),
    ]);
}
