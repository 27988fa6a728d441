import type { Kysely } from 'kysely';

// Failed attempts of an event consumer, one row per consumer and event (src/core/outbox-relay.ts): deleted
// when a later attempt succeeds; after failing for WOS_OUTBOX_GIVE_UP_MINUTES the relay gives the event up
// for that consumer (gave_up_at) so the workspace's later events flow again, and the row stays for the
// operator (GET /admin/v1/outbox-failures) until they dismiss it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox_failures')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('consumer', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_name', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('first_failed_at', 'text', (c) => c.notNull())
    .addColumn('last_failed_at', 'text', (c) => c.notNull())
    .addColumn('last_error', 'text', (c) => c.notNull())
    .addColumn('gave_up_at', 'text')
    .addUniqueConstraint('outbox_failures_event', ['workspace_id', 'consumer', 'event_id'])
    .execute();
}
