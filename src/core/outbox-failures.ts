// The relay's record of a consumer failing on an event (src/core/outbox-relay.ts): one row per consumer and
// event, counting attempts, until an attempt succeeds (the row goes) or the relay gives the event up for
// that consumer after WOS_OUTBOX_GIVE_UP_MINUTES of failures. A given-up row stays for the operator, who
// lists and dismisses them (/admin/v1/outbox-failures). These are system queries across workspaces: the
// relay and the operator work for the installation, and every one of them names the workspace it touches.
import type { Kysely } from 'kysely';
import type { DB, OutboxEventsTable, OutboxFailuresTable } from '../db/tables.ts';
import { fail } from './errors.ts';
import { newId } from './ids.ts';

/** What is kept of an error: its message, bounded (a stack or a query could be long). */
const ERROR_CHARS = 500;

/** One consumer's part in one event: the key of its failure row and of its consumption. */
export const consumerEventKey = (consumer: string, eventId: string) => `${consumer} ${eventId}`;

/** The failure rows of these events (any consumer), keyed by consumerEventKey. */
export async function failuresOf(
  trx: Kysely<DB>,
  workspaceIds: string[],
  eventIds: string[],
  _system: { system: true },
): Promise<Map<string, OutboxFailuresTable>> {
  const rows = await trx
    .selectFrom('outbox_failures')
    .selectAll()
    .where('workspace_id', 'in', workspaceIds)
    .where('event_id', 'in', eventIds)
    .execute();
  return new Map(rows.map((row) => [consumerEventKey(row.consumer, row.event_id), row]));
}

/**
 * Counts one more failed attempt of `consumer` on `event`; gives the event up when the first failure is at
 * least `giveUpAfterMs` old. Returns the row as stored.
 */
export async function recordFailure(
  trx: Kysely<DB>,
  earlier: OutboxFailuresTable | undefined,
  failure: { consumer: string; event: OutboxEventsTable; error: unknown; now: string; giveUpAfterMs: number },
): Promise<OutboxFailuresTable> {
  const { consumer, event, now } = failure;
  const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
  const firstFailedAt = earlier?.first_failed_at ?? now;
  const givingUp = Date.parse(now) - Date.parse(firstFailedAt) >= failure.giveUpAfterMs;
  const row: OutboxFailuresTable = {
    id: earlier?.id ?? newId('ofl'),
    workspace_id: event.workspace_id,
    consumer,
    event_id: event.id,
    event_name: event.name,
    attempts: (earlier?.attempts ?? 0) + 1,
    first_failed_at: firstFailedAt,
    last_failed_at: now,
    last_error: message.slice(0, ERROR_CHARS),
    gave_up_at: givingUp ? now : null,
  };
  await trx
    .insertInto('outbox_failures')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['workspace_id', 'consumer', 'event_id']).doUpdateSet({
        attempts: row.attempts,
        last_failed_at: row.last_failed_at,
        last_error: row.last_error,
        gave_up_at: row.gave_up_at,
      }),
    )
    .execute();
  return row;
}

/** Forgets the failures of events the consumer has now handled. */
export async function clearFailures(trx: Kysely<DB>, rows: OutboxFailuresTable[]): Promise<void> {
  for (const row of rows) {
    await trx
      .deleteFrom('outbox_failures')
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
  }
}

/** Operator: failures across the installation, oldest first (at most 500; the table stays small). */
export async function listFailures(db: Kysely<DB>, _system: { system: true }) {
  const rows = await db
    .selectFrom('outbox_failures')
    .selectAll()
    .orderBy('first_failed_at')
    .orderBy('id')
    .limit(500)
    .execute();
  return rows.map((row) => ({
    ...row,
    attempts: Number(row.attempts),
    state: row.gave_up_at ? ('given_up' as const) : ('failing' as const),
  }));
}

/** Operator: removes a given-up failure once dealt with (a failing one is the relay's to settle). */
export async function dismissFailure(db: Kysely<DB>, id: string, _system: { system: true }): Promise<void> {
  const row = await db.selectFrom('outbox_failures').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw fail('resource_not_found', { message: 'No outbox failure has this ID.' });
  if (!row.gave_up_at) {
    throw fail('conflict', {
      message: 'The relay is still retrying this event; only a given-up failure can be dismissed.',
    });
  }
  await db.deleteFrom('outbox_failures').where('id', '=', id).execute();
}
