import { type Kysely, sql } from 'kysely';
import { type CountedRecords, counterRecountSql, counterTriggerSql } from '../../core/record-counter-sql.ts';
import { isPostgres } from '../dialect.ts';

const OPEN_DEAL = (r: string) => `${r}.closed_at is null`;
const ACTIVE_PROJECT = (p: string) => `${p}.status = 'active'`;

/**
 * What get_workspace_summary counts, as of this migration (frozen with it: a change of the counted set is
 * a new migration that installs its own list's triggers and rebuilds). Spans several modules, so it is a
 * platform migration.
 */
export const COUNTED_RECORDS: readonly CountedRecords[] = [
  { counter: 'contacts', table: 'contacts' },
  { counter: 'companies', table: 'companies' },
  {
    counter: 'open_deals',
    table: 'deals',
    by: 'currency',
    sum: 'amount_cents',
    where: OPEN_DEAL,
    watch: ['closed_at'],
  },
  { counter: 'tasks', table: 'tasks', by: 'status' },
  { counter: 'activities', table: 'activities', by: 'type' },
  { counter: 'support_tickets', table: 'support_tickets', by: 'status' },
  { counter: 'cms_entries', table: 'cms_entries', by: 'status' },
  { counter: 'marketing_campaigns', table: 'marketing_campaigns', by: 'status' },
  { counter: 'assets', table: 'assets', by: 'status' },
  { counter: 'projects', table: 'projects', by: 'status' },
  {
    counter: 'active_project_tasks',
    table: 'project_tasks',
    by: 'status',
    parent: { table: 'projects', key: 'project_id', where: ACTIVE_PROJECT, watch: ['status'] },
  },
  { counter: 'products', table: 'products', by: 'status' },
  { counter: 'product_releases', table: 'product_releases', by: 'status' },
  { counter: 'product_roadmap_items', table: 'product_roadmap_items', by: 'status' },
  { counter: 'calendars', table: 'calendars' },
];

// Per-workspace counts of records (src/core/record-counters.ts), kept by triggers in the transaction of
// every write to a counted table, so get_workspace_summary reads a few rows instead of counting tables.
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema
    .createTable('record_counters')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('counter', 'text', (c) => c.notNull())
    .addColumn('dimension', 'text', (c) => c.notNull())
    // PostgreSQL spreads a counter over slots (one per concurrent writer); SQLite uses slot 0 only.
    .addColumn('slot', 'integer', (c) => c.notNull())
    .addColumn('n', 'bigint', (c) => c.notNull())
    .addColumn('amount', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('record_counters_pk', ['workspace_id', 'counter', 'dimension', 'slot'])
    .execute();
  for (const statement of counterTriggerSql(postgres ? 'postgres' : 'sqlite', COUNTED_RECORDS)) {
    await sql.raw(statement).execute(db);
  }
  // Backfill: migrations run in one transaction per migration on PostgreSQL, before the service serves.
  for (const counted of COUNTED_RECORDS) {
    await sql`insert into record_counters (workspace_id, counter, dimension, slot, n, amount) ${counterRecountSql(counted)}`.execute(
      db,
    );
  }
}
