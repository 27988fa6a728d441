import type { Kysely } from 'kysely';

// The relay's record of which consumer handled which event, for events still unpublished because another
// consumer has not handled them yet (src/core/outbox-relay.ts). Written in the transaction of the consumer's
// own writes, deleted when the event is published: the table holds only events in flight.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox_consumptions')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('consumer', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('outbox_consumptions_pk', ['workspace_id', 'consumer', 'event_id'])
    .execute();
}
