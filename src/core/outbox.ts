import type { Kysely } from 'kysely';
import { reusableInsert } from '../db/reusable-query.ts';
import type { DB, OutboxEventsTable } from '../db/tables.ts';
import type { DomainEvent } from './context.ts';
import { newId } from './ids.ts';

/** Domain events are stored in the write's own transaction; consumers (webhooks, rules) read the outbox. */
export function outboxRow(
  workspaceId: string,
  requestId: string,
  occurredAt: string,
  event: DomainEvent,
): OutboxEventsTable {
  return {
    workspace_id: workspaceId,
    id: newId('evt'),
    request_id: requestId,
    name: event.name,
    occurred_at: occurredAt,
    target_type: event.targetType ?? null,
    target_id: event.targetId ?? null,
    payload: JSON.stringify(event.data ?? null),
    published_at: null,
  };
}

/** Column order of outbox_events inserts (also src/core/write-effects.ts). */
export const OUTBOX_COLUMNS = [
  'workspace_id',
  'id',
  'request_id',
  'name',
  'occurred_at',
  'target_type',
  'target_id',
  'payload',
  'published_at',
] as const satisfies readonly (keyof OutboxEventsTable)[];

const insertOutboxRows = reusableInsert<OutboxEventsTable>('outbox_events', OUTBOX_COLUMNS);

export async function insertOutboxEvents(db: Kysely<DB>, rows: OutboxEventsTable[]): Promise<void> {
  await insertOutboxRows(db, rows);
}
