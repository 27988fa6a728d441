import type { Kysely } from 'kysely';

// The shared rate-limit counters of rate-limiter-flexible's PostgreSQL store, in its own layout (key,
// points, expire). Created here so that nodes never race to create it. Keys are "<limit>:<workspace_id>":
// an installation-level table, like the job queue's schema.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('wos_rate_limits')
    .ifNotExists()
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute();
}
