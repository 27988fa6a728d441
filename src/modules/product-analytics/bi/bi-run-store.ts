// BI runs: rows of the platform's runs table (module product_analytics_bi) plus a bi_run_details row with
// what BI adds (related objects, rows). Every BI run has that row; GET /v1/bi/runs lists through it.
// Runs started by ctx.startRun (exports, refreshes) call attachBiRun in the same transaction.
import type { Kysely } from 'kysely';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { fetchKeysetPage, type PageRequest } from '../../../core/pagination.ts';
import { toRunResource } from '../../../core/run-resource.ts';
import type { DB, RunsTable } from '../../../db/tables.ts';
import type { BiRunDetailsTable } from './bi-tables.ts';

export const BI_MODULE = 'product_analytics_bi';

export interface BiRelated {
  type: string;
  id: string;
}

type Row = RunsTable & Pick<BiRunDetailsTable, 'related' | 'row_count'>;

export function toBiRun(row: Row) {
  return {
    ...toRunResource(row),
    related: JSON.parse(row.related) as BiRelated[],
    row_count: row.row_count === null ? null : Number(row.row_count),
  };
}
export type BiRun = ReturnType<typeof toBiRun>;

/** Adds the BI side of a run written elsewhere (ctx.startRun), in the caller's transaction. */
export async function attachBiRun(
  db: Kysely<DB>,
  workspaceId: string,
  runId: string,
  related: BiRelated[],
  now: string,
): Promise<void> {
  await db
    .insertInto('bi_run_details')
    .values({
      workspace_id: workspaceId,
      run_id: runId,
      related: JSON.stringify(related),
      row_count: null,
      created_at: now,
    })
    .execute();
}

/** Records the rows a BI run produced (a job finishing an export or a refresh). */
export async function setBiRunRows(db: Kysely<DB>, workspaceId: string, runId: string, rows: number) {
  await db
    .updateTable('bi_run_details')
    .set({ row_count: rows })
    .where('workspace_id', '=', workspaceId)
    .where('run_id', '=', runId)
    .execute();
}

export interface FinishedBiRun {
  workspaceId: string;
  runType: string;
  operation: string;
  trigger: string;
  input: Record<string, unknown>;
  related: BiRelated[];
  status: 'completed' | 'failed';
  startedAt: string;
  durationMs: number;
  rowCount: number | null;
  error?: { code: string; message: string };
  requestId: string;
  credentialId: string | null;
}

/**
 * Writes a BI run that already finished inside its call (a query run): one attempt, queued and started when
 * the call started, finished after its duration. Returns the run as GET /v1/bi/runs/{id} shows it.
 */
export async function recordBiRun(db: Kysely<DB>, run: FinishedBiRun): Promise<BiRun> {
  const finishedAt = new Date(Date.parse(run.startedAt) + run.durationMs).toISOString();
  const row: RunsTable = {
    workspace_id: run.workspaceId,
    id: newId('run'),
    run_type: run.runType,
    module: BI_MODULE,
    operation: run.operation,
    // No job: the work ran in the call.
    job_name: 'inline',
    status: run.status,
    trigger: run.trigger,
    input_summary: JSON.stringify(run.input),
    attempts: 1,
    queued_at: run.startedAt,
    started_at: run.startedAt,
    finished_at: finishedAt,
    duration_ms: run.durationMs,
    error_code: run.error?.code ?? null,
    error_message: run.error?.message.slice(0, 1000) ?? null,
    result_ref: run.related[0]?.id ?? null,
    request_id: run.requestId,
    credential_id: run.credentialId,
    updated_at: finishedAt,
  };
  await db.insertInto('runs').values(row).execute();
  const details = { related: JSON.stringify(run.related), row_count: run.rowCount };
  await db
    .insertInto('bi_run_details')
    .values({ workspace_id: run.workspaceId, run_id: row.id, ...details, created_at: run.startedAt })
    .execute();
  return toBiRun({ ...row, ...details });
}

const joined = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('bi_run_details as d')
    .innerJoin('runs as r', (join) =>
      join.onRef('r.workspace_id', '=', 'd.workspace_id').onRef('r.id', '=', 'd.run_id'),
    )
    .where('d.workspace_id', '=', workspaceId)
    .selectAll('r')
    .select(['d.run_id', 'd.related', 'd.row_count']);

export async function findBiRun(db: Kysely<DB>, workspaceId: string, runId: string): Promise<BiRun> {
  const row = await joined(db, workspaceId).where('d.run_id', '=', runId).executeTakeFirst();
  if (!row) throw notFound('BI run');
  return toBiRun(row);
}

export async function listBiRuns(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: RunsTable['status']; trigger?: string; run_type?: string },
  page: PageRequest,
) {
  let query = joined(db, workspaceId);
  if (filters.status) query = query.where('r.status', '=', filters.status);
  if (filters.trigger) query = query.where('r.trigger', '=', filters.trigger);
  if (filters.run_type) query = query.where('r.run_type', '=', filters.run_type);
  const result = await fetchKeysetPage(query, page, [
    { column: 'd.run_id', direction: 'desc', type: 'string' },
  ]);
  return { ...result, items: result.items.map(toBiRun) };
}
