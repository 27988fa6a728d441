import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../../db/dialect.ts';

// The daily rollup of call events that usage_activation and api_usage read for whole UTC days
// (docs/modules/bi.md, "The daily call-event rollup"): per workspace, UTC day and the columns the templates
// group and filter by, the calls and the sums of their measures. call_event_days_state holds the one row
// saying which days it covers: [rolled_from, rolled_until), both UTC midnights. A query reads those days
// from here and every other call event raw, with the row read in the same statement; the job
// (bi/call-event-days-job.ts) inserts a day and moves rolled_until in one transaction. Not billing:
// call_event_months (0014) is what retention keeps.
const KEYS = [
  'workspace_id',
  'day',
  'kind',
  'route',
  'method',
  'credential_path',
  'http_status',
  'error_code',
];
const MEASURES = ['calls', 'failed_calls', 'units', 'billed_units', 'duration_ms'];
/** "Nothing rolled up": every call event is read raw. */
const NOTHING = '1970-01-01T00:00:00.000Z';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('call_event_days')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('credential_path', 'text', (c) => c.notNull())
    // The types of call_events' columns: PostgreSQL pushes a filter into both arms of the union only when
    // the column has the same type in each.
    .addColumn('http_status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('calls', 'bigint', (c) => c.notNull())
    .addColumn('failed_calls', 'bigint', (c) => c.notNull())
    .addColumn('units', 'bigint', (c) => c.notNull())
    .addColumn('billed_units', 'bigint', (c) => c.notNull())
    // call_events.duration_ms is NOT NULL: the calls are also the count of durations (avg stays exact).
    .addColumn('duration_ms', 'bigint', (c) => c.notNull())
    .execute();
  // A workspace's days in order with every column a template reads: the rollup is read from the index
  // alone (PostgreSQL: the measures as included columns).
  if (isPostgres(db)) {
    await sql`create index call_event_days_read on call_event_days (${sql.join(KEYS.map((k) => sql.id(k)))})
      include (${sql.join(MEASURES.map((m) => sql.id(m)))})`.execute(db);
  } else {
    await db.schema
      .createIndex('call_event_days_read')
      .on('call_event_days')
      .columns([...KEYS, ...MEASURES])
      .execute();
  }
  // The retention cut deletes the oldest days of every workspace.
  await db.schema.createIndex('call_event_days_day').on('call_event_days').column('day').execute();

  await db.schema
    .createTable('call_event_days_state')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('rolled_from', 'text', (c) => c.notNull())
    .addColumn('rolled_until', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('call_event_days_state')
    .values({ id: 'call_events', rolled_from: NOTHING, rolled_until: NOTHING })
    .execute();
}
