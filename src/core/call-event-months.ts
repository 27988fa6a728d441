// Usage beyond the raw call events' retention: call_event_months holds, per workspace, month, route, method,
// kind and credential path, the counts of the call events the retention job deleted. The job adds a batch's
// counts and deletes that batch in one transaction (on PostgreSQL from the rows the DELETE returned), so
// every call event is counted either raw or rolled up, never both and never neither, and running the job
// again finds nothing left to move. Readers of a month add the two.
import { type Kysely, type RawBuilder, sql } from 'kysely';
import { monthEnd, monthOf } from '../db/month-partitions.ts';
import type { CallEventMonthsTable, DB } from '../db/tables.ts';

const COLUMNS = sql.raw(
  'workspace_id, month, route, method, kind, credential_path, calls, failed_calls, units, billed_units, duration_ms',
);

/** The aggregate rows of `source` (a table or CTE with call_events' columns), grouped for the upsert. */
function rollUpFrom(source: RawBuilder<unknown>, where: RawBuilder<unknown>) {
  return sql`insert into call_event_months (${COLUMNS})
    select workspace_id, substr(occurred_at, 1, 7), route, method, kind, credential_path, count(*),
      sum(case when http_status >= 400 then 1 else 0 end), sum(units), sum(billed_units), sum(duration_ms)
    from ${source} where ${where}
    group by workspace_id, substr(occurred_at, 1, 7), route, method, kind, credential_path
    on conflict (workspace_id, month, route, method, kind, credential_path) do update set
      calls = call_event_months.calls + excluded.calls,
      failed_calls = call_event_months.failed_calls + excluded.failed_calls,
      units = call_event_months.units + excluded.units,
      billed_units = call_event_months.billed_units + excluded.billed_units,
      duration_ms = call_event_months.duration_ms + excluded.duration_ms`;
}

/**
 * SQLite: rolls up and deletes up to `limit` of a workspace's call events older than `cutoff`, oldest first
 * (the (workspace_id, occurred_at) index: the statement reads no more rows than it moves). Returns how many
 * went. Runs in the caller's transaction; SQLite has one writer, so both statements see the same rows.
 */
export async function rollUpOldestSqlite(
  trx: Kysely<DB>,
  workspaceId: string,
  cutoff: string,
  limit: number,
): Promise<number> {
  const where = sql`rowid in (select rowid from call_events where workspace_id = ${workspaceId}
    and occurred_at < ${cutoff} order by occurred_at, rowid limit ${limit})`;
  await rollUpFrom(sql`call_events`, where).execute(trx);
  const gone = await sql`delete from call_events where ${where}`.execute(trx);
  return Number(gone.numAffectedRows ?? 0);
}

/**
 * PostgreSQL: rolls up and deletes up to `limit` call events older than `cutoff` from one table (the default
 * partition: rows of months that had no partition yet), counting exactly the rows the DELETE returned.
 */
export async function rollUpOldestPostgres(
  db: Kysely<DB>,
  table: string,
  cutoff: string,
  limit: number,
): Promise<number> {
  const source = sql.id(table);
  const result = await sql`with gone as (
      delete from ${source} where ctid = any(array(
        select ctid from ${source} where occurred_at < ${cutoff} limit ${limit}))
      returning *),
    added as (${rollUpFrom(sql`gone`, sql`true`)})
    select count(*) as n from gone`.execute(db);
  return Number((result.rows[0] as { n: string | number }).n);
}

/**
 * PostgreSQL: rolls up a whole month partition and drops it, in one transaction. The partition is locked
 * against writes first (reads go on), so no row can arrive between the count and the drop.
 */
export async function rollUpAndDropPartition(db: Kysely<DB>, partition: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`lock table ${sql.id(partition)} in share mode`.execute(trx);
    await rollUpFrom(sql.id(partition), sql`true`).execute(trx);
    await sql`drop table ${sql.id(partition)}`.execute(trx);
  });
}

/** The billed units of a workspace's month (YYYY-MM): rolled-up months plus raw rows, in one statement. */
export async function monthBilledUnits(db: Kysely<DB>, workspaceId: string, month: string): Promise<number> {
  const result = await sql<{ units: string | number }>`select
      coalesce((select sum(billed_units) from call_event_months
        where workspace_id = ${workspaceId} and month = ${month}), 0)
      + coalesce((select sum(billed_units) from call_events where workspace_id = ${workspaceId}
        and occurred_at >= ${`${month}-01`} and occurred_at < ${`${monthOf(monthEnd(month))}-01`}), 0) as units`.execute(
    db,
  );
  return Number(result.rows[0]?.units ?? 0);
}

/** A month's usage of one route, method, kind and credential path (call_event_months without the workspace). */
export type MonthlyUsageRow = Omit<CallEventMonthsTable, 'workspace_id'>;

/**
 * A workspace's usage per month, route, method, kind and credential path for the months `from` to `to`
 * (YYYY-MM, inclusive): what the usage dataset and billing read. The same answer before and after the
 * retention job moves raw rows into the aggregates (one statement, so one snapshot on PostgreSQL).
 */
export async function monthlyUsage(
  db: Kysely<DB>,
  workspaceId: string,
  from: string,
  to: string,
): Promise<MonthlyUsageRow[]> {
  const result = await sql<Record<keyof MonthlyUsageRow, string | number>>`select month, route, method,
      kind, credential_path, sum(calls) as calls, sum(failed_calls) as failed_calls, sum(units) as units,
      sum(billed_units) as billed_units, sum(duration_ms) as duration_ms
    from (
      select month, route, method, kind, credential_path, calls, failed_calls, units, billed_units, duration_ms
      from call_event_months where workspace_id = ${workspaceId} and month >= ${from} and month <= ${to}
      union all
      select substr(occurred_at, 1, 7), route, method, kind, credential_path, 1,
        case when http_status >= 400 then 1 else 0 end, units, billed_units, duration_ms
      from call_events where workspace_id = ${workspaceId} and occurred_at >= ${`${from}-01`}
        and occurred_at < ${`${monthOf(monthEnd(to))}-01`}
    ) usage
    group by month, route, method, kind, credential_path
    order by month, route, method, kind, credential_path`.execute(db);
  return result.rows.map((row) => ({
    month: String(row.month),
    route: String(row.route),
    method: String(row.method),
    kind: String(row.kind),
    credential_path: String(row.credential_path),
    calls: Number(row.calls),
    failed_calls: Number(row.failed_calls),
    units: Number(row.units),
    billed_units: Number(row.billed_units),
    duration_ms: Number(row.duration_ms),
  }));
}
