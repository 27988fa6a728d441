import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import { COUNTED_RECORDS } from '../db/migrations/0013-record-counters.ts';
import type { DB } from '../db/tables.ts';
import { counterRecountSql } from './record-counter-sql.ts';

// Per-workspace record counts for get_workspace_summary. Triggers (installed by migration 0013, from
// COUNTED_RECORDS) keep them in the transaction of every write to a counted table, whatever path made
// it; this file reads them and recomputes them from the tables (`wos counters rebuild`).

export interface RecordCountersTable {
  workspace_id: string;
  counter: string;
  /** The value of the counter's `by` column (a status, a type, a currency), or '' when it has none. */
  dimension: string;
  /** PostgreSQL: one of the rows a counter is spread over (summed on read). SQLite: always 0. */
  slot: number;
  n: number;
  amount: number;
}

export type CounterName = (typeof COUNTED_RECORDS)[number]['counter'];

/** One counter of a workspace: its count per dimension and, for summed counters, the sums. */
export interface CounterValue {
  total: number;
  by: Record<string, number>;
  amountBy: Record<string, number>;
}

type CounterRow = { counter: string; dimension: string; n: number; amount: number };

/** Reads of one database and workspace asked in the same tick: get_workspace_summary's sections. */
const batches = new WeakMap<
  Kysely<DB>,
  Map<string, { counters: Set<string>; rows: Promise<CounterRow[]> }>
>();

function counterRows(
  db: Kysely<DB>,
  workspaceId: string,
  counters: readonly string[],
): Promise<CounterRow[]> {
  const byWorkspace = batches.get(db) ?? new Map();
  batches.set(db, byWorkspace);
  const open = byWorkspace.get(workspaceId);
  if (open) {
    for (const c of counters) open.counters.add(c);
    return open.rows;
  }
  const batch = { counters: new Set(counters), rows: Promise.resolve([] as CounterRow[]) };
  byWorkspace.set(workspaceId, batch);
  // The sections start together (Promise.all): wait one microtask, then read all their counters at once.
  batch.rows = Promise.resolve().then(() => {
    byWorkspace.delete(workspaceId);
    return db
      .withTables<{ record_counters: RecordCountersTable }>()
      .selectFrom('record_counters')
      .select((eb) => [
        'counter',
        'dimension',
        eb.fn.sum<number>('n').as('n'),
        eb.fn.sum<number>('amount').as('amount'),
      ])
      .where('workspace_id', '=', workspaceId)
      .where('counter', 'in', [...batch.counters])
      .groupBy(['counter', 'dimension'])
      .execute();
  });
  return batch.rows;
}

/**
 * The named counters of a workspace, summed over their slots: one indexed query that reads a few rows per
 * counter, whatever the number of records (the reads of the summary's sections share one). Dimensions
 * whose count is zero are left out.
 */
export async function readRecordCounters<C extends string>(
  db: Kysely<DB>,
  workspaceId: string,
  counters: readonly C[],
): Promise<Record<C, CounterValue>> {
  const rows = await counterRows(db, workspaceId, counters);
  const result = Object.fromEntries(
    counters.map((c) => [c, { total: 0, by: {}, amountBy: {} } satisfies CounterValue]),
  ) as Record<C, CounterValue>;
  for (const row of rows) {
    const value = result[row.counter as C];
    const n = Number(row.n);
    if (!value || n === 0) continue;
    value.total += n;
    value.by[row.dimension] = n;
    value.amountBy[row.dimension] = Number(row.amount);
  }
  return result;
}

/**
 * A counter's count (over the given dimensions, or all) as a scalar subquery, for a section that reads a
 * counter beside a time-dependent count in its one query.
 */
export function counterSum(
  eb: ExpressionBuilder<any, any>,
  workspaceId: string,
  counter: string,
  dimensions?: readonly string[],
) {
  let query = eb
    .selectFrom('record_counters')
    .select(sql<number>`coalesce(sum(n), 0)`.as('n'))
    .where('workspace_id', '=', workspaceId)
    .where('counter', '=', counter);
  if (dimensions) query = query.where('dimension', 'in', dimensions);
  return query;
}

/** The sum of a counter's counts over the given dimensions (statuses). */
export function countOf(value: CounterValue, dimensions: readonly string[]): number {
  return dimensions.reduce((total, d) => total + (value.by[d] ?? 0), 0);
}

/**
 * Recomputes every counter exactly from the tables, for one workspace or all, and folds PostgreSQL's slots
 * back into one row each. Safe beside live writes: on PostgreSQL it locks record_counters against writers
 * (EXCLUSIVE: reads go on) for its duration, so a write either committed before the recount, which sees
 * it, or adds its change after it; SQLite runs it as its one writer.
 */
export async function rebuildRecordCounters(
  db: Kysely<DB>,
  workspaceId?: string,
): Promise<{ counters: number }> {
  return db
    .withTables<{ record_counters: RecordCountersTable }>()
    .transaction()
    .execute(async (trx) => {
      if (isPostgres(trx)) {
        await sql`lock table record_counters in exclusive mode`.execute(trx);
      }
      let remove = trx.deleteFrom('record_counters');
      if (workspaceId !== undefined) remove = remove.where('workspace_id', '=', workspaceId);
      await remove.execute();
      let written = 0;
      for (const counted of COUNTED_RECORDS) {
        const result =
          await sql`insert into record_counters (workspace_id, counter, dimension, slot, n, amount) ${counterRecountSql(counted, workspaceId)}`.execute(
            trx,
          );
        written += Number(result.numAffectedRows ?? 0);
      }
      return { counters: written };
    });
}
