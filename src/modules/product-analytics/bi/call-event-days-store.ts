// The queries of the daily call-event rollup (call-event-days-job.ts). Every function is a system action
// over all workspaces (the job's): the `_system` argument says so. The state row and the days it covers
// change only inside one transaction that first locks the row (PostgreSQL; SQLite has one writer), so two
// runs never roll up the same day and a reader sees a day either in the rollup or raw, never both.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from '../../../db/dialect.ts';
import type { DB } from '../../../db/tables.ts';

type System = { system: true };
const STATE_ID = 'call_events';

export interface DayState {
  /** The rollup covers the UTC days from rolled_from (inclusive) to rolled_until (exclusive). */
  rolled_from: string;
  rolled_until: string;
}

/** The state row, locked until the transaction ends (PostgreSQL: FOR UPDATE). */
export async function lockDayState(trx: Kysely<DB>, _system: System): Promise<DayState> {
  return trx
    .selectFrom('call_event_days_state')
    .select(['rolled_from', 'rolled_until'])
    .where('id', '=', STATE_ID)
    .$if(isPostgres(trx), (query) => query.forUpdate())
    .executeTakeFirstOrThrow();
}

export async function setDayState(trx: Kysely<DB>, state: DayState, _system: System): Promise<void> {
  await trx.updateTable('call_event_days_state').set(state).where('id', '=', STATE_ID).execute();
}

/**
 * The earliest call event at or after `from` in any workspace, or null: one index probe per workspace
 * ((workspace_id, occurred_at)), so days without calls are skipped instead of rolled up one by one.
 */
export async function firstCallEventAt(trx: Kysely<DB>, from: string, _system: System) {
  const result = await sql<{ first: string | null }>`select min((select min(c.occurred_at)
      from call_events c where c.workspace_id = w.id and c.occurred_at >= ${from})) as first
    from workspaces w`.execute(trx);
  return result.rows[0]?.first ?? null;
}

/**
 * Rolls up the call events of every workspace in [day, next) in one grouped statement; returns the rows
 * written. Workspaces are the outer loop (CROSS JOIN fixes the order on SQLite): each one's day is a range
 * of (workspace_id, occurred_at), so the statement reads the day's rows only.
 */
export async function insertCallEventDay(
  trx: Kysely<DB>,
  day: string,
  next: string,
  _system: System,
): Promise<number> {
  const result = await sql`insert into call_event_days (workspace_id, day, kind, route, method,
      credential_path, http_status, error_code, calls, failed_calls, units, billed_units, duration_ms)
    select c.workspace_id, cast(${day} as text), c.kind, c.route, c.method, c.credential_path, c.http_status,
      c.error_code, count(*), sum(case when c.http_status >= 400 then 1 else 0 end), sum(c.units),
      sum(c.billed_units), sum(c.duration_ms)
    from workspaces w cross join call_events c
    where c.workspace_id = w.id and c.occurred_at >= ${day} and c.occurred_at < ${next}
    group by c.workspace_id, c.kind, c.route, c.method, c.credential_path, c.http_status, c.error_code`.execute(
    trx,
  );
  return Number(result.numAffectedRows ?? 0);
}

/** Deletes the rolled-up days before `day` (index call_event_days_day); returns how many rows went. */
export async function deleteDaysBefore(trx: Kysely<DB>, day: string, _system: System): Promise<number> {
  const result = await trx.deleteFrom('call_event_days').where('day', '<', day).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0);
}
