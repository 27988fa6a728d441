// A report's refresh, shared by refresh_bi_report and the scheduler (a report as a schedule target).
import type { Kysely } from 'kysely';
import { notFound } from '../../../core/errors.ts';
import type { Dialect } from '../../../db/database.ts';
import type { DB } from '../../../db/tables.ts';
import type { BiReportsTable } from './bi-object-tables.ts';
import type { RefreshRead } from './object-refresh.ts';
import type { QueryDefinition } from './query-definition.ts';
import { findReport, updateReportRow } from './report-store.ts';
import { type BiResult, runQueryDefinition, setBiRunRows } from './run-query.ts';
import type { ScheduleTarget } from './schedule-targets.ts';

/** Runs a report's query as its author (metric governance). `db` reads: heavy-read connections. */
export async function refreshReportRead(
  db: Kysely<DB>,
  workspaceId: string,
  report: Pick<BiReportsTable, 'definition' | 'created_by'>,
  options: { dialect: Dialect; now: string },
): Promise<RefreshRead> {
  const { compiled, result } = await runQueryDefinition(
    db,
    workspaceId,
    JSON.parse(report.definition) as QueryDefinition,
    { dialect: options.dialect, now: options.now, credentialId: report.created_by },
  );
  return { result, metrics: compiled.metrics.map((m) => m.id) };
}

/** The columns a successful refresh sets. */
export const reportRefreshed = (runId: string, at: string, result: BiResult) => ({
  last_run_id: runId,
  last_refreshed_at: at,
  last_result: JSON.stringify(result),
});

export const reportScheduleTarget: ScheduleTarget = {
  recordType: 'bi_report',
  refresh: async (work, reportId) => {
    const report = await findReport(work.db, work.workspaceId, reportId);
    if (!report || report.archived_at) throw notFound('report');
    const now = work.run.started_at ?? work.run.queued_at;
    const read = await refreshReportRead(work.reads, work.workspaceId, report, {
      dialect: work.dialect,
      now,
    });
    work.signal.throwIfAborted();
    await setBiRunRows(work.db, work.workspaceId, work.run.id, read.result.row_count);
    await updateReportRow(
      work.db,
      work.workspaceId,
      reportId,
      reportRefreshed(work.run.id, now, read.result),
    );
    return { resultRef: reportId, rowCount: read.result.row_count };
  },
};
