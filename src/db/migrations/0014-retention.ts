import { type Kysely, sql } from 'kysely';
import { ensureMonthPartitions, isPostgres, monthOf } from '../month-partitions.ts';

// Retention (src/core/retention-job.ts). call_event_months keeps forever the monthly counts of the call
// events retention deletes. On PostgreSQL call_events and audit_events become partitioned by month of
// occurred_at, so retention drops whole months: the primary key must hold the partition key, so it becomes
// (workspace_id, occurred_at, id), which also serves the workspace-and-time range the old occurred index
// served. No table references either by foreign key, and every lookup (by request ID, by target, by
// workspace and time) keeps an index. SQLite keeps its tables: retention deletes there in small batches,
// oldest first, through an index on occurred_at.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('call_event_months')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('credential_path', 'text', (c) => c.notNull())
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('failed_calls', 'bigint', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('billed_units', 'bigint', (c) => c.notNull())
    .addColumn('duration_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('call_event_months_pk', [
      'workspace_id',
      'month',
      'route',
      'method',
      'kind',
      'credential_path',
    ])
    .execute();
  if (!isPostgres(db)) {
    // Retention deletes the oldest audit events first, across workspaces (call events go per workspace,
    // through call_events_occurred).
    await db.schema.createIndex('audit_events_occurred').on('audit_events').column('occurred_at').execute();
    return;
  }

  await partitionByMonth(db, 'call_events', [
    'call_events_pk',
    'call_events_request',
    'call_events_occurred',
  ]);
  await sql`create index call_events_request on call_events (request_id)`.execute(db);

  await partitionByMonth(db, 'audit_events', [
    'audit_events_pk',
    'audit_events_target',
    'audit_events_request',
  ]);
  await sql`create index audit_events_target on audit_events (workspace_id, target_type, target_id, id)`.execute(
    db,
  );
  await sql`create index audit_events_request on audit_events (request_id)`.execute(db);
}

/**
 * Renames the table (and its constraint and index names, which are schema-wide), creates the partitioned
 * table with the same columns, its default partition and the partitions of every month holding rows plus
 * this month and the next two, copies the rows and drops the old table.
 */
async function partitionByMonth(db: Kysely<any>, table: 'call_events' | 'audit_events', names: string[]) {
  const old = `${table}_unpartitioned`;
  await sql`alter table ${sql.id(table)} rename to ${sql.id(old)}`.execute(db);
  for (const name of names) {
    await sql`alter index if exists ${sql.id(name)} rename to ${sql.id(`${name}_unpartitioned`)}`.execute(db);
  }
  await sql`create table ${sql.id(table)} (like ${sql.id(old)} including defaults)
    partition by range (occurred_at)`.execute(db);
  await sql`alter table ${sql.id(table)} add constraint ${sql.id(`${table}_pk`)}
    primary key (workspace_id, occurred_at, id)`.execute(db);
  await sql`create table ${sql.id(`${table}_default`)} partition of ${sql.id(table)} default`.execute(db);
  const months = await sql<{ month: string }>`select distinct substr(occurred_at, 1, 7) as month
    from ${sql.id(old)}`.execute(db);
  const now = new Date();
  for (const { month } of months.rows) {
    if (!/^\d{4}-\d{2}$/.test(month)) continue; // not a month: the row stays in the default partition
    const start = new Date(`${month}-01T00:00:00.000Z`);
    await ensureMonthPartitions(db, table, start, start);
  }
  await ensureMonthPartitions(db, table, now, new Date(`${monthOf(now, 2)}-01T00:00:00.000Z`));
  await sql`insert into ${sql.id(table)} select * from ${sql.id(old)}`.execute(db);
  await sql`drop table ${sql.id(old)}`.execute(db);
}
