// An insight view as a schedule target: each occurrence reads the view as its author (the scheduler's run,
// trigger schedule) and stores the rows; a failure fails the run, which the view shows as its latest.
import { notFound } from '../../../core/errors.ts';
import { readView } from './insight-view-source.ts';
import { definitionOfView, findInsightView, updateInsightViewRow } from './insight-view-store.ts';
import { type BiResult, setBiRunRows } from './run-query.ts';
import type { ScheduleTarget } from './schedule-targets.ts';

/** The columns a successful refresh sets. */
export const viewRefreshed = (runId: string, at: string, result: BiResult) => ({
  last_run_id: runId,
  last_refreshed_at: at,
  last_result: JSON.stringify(result),
});

export const insightViewScheduleTarget: ScheduleTarget = {
  recordType: 'insight_view',
  refresh: async (work, viewId) => {
    const view = await findInsightView(work.db, work.workspaceId, viewId);
    if (!view || view.archived_at) throw notFound('insight view');
    const now = work.run.started_at ?? work.run.queued_at;
    const read = await readView(work.reads, work.workspaceId, definitionOfView(view), {
      dialect: work.dialect,
      now,
      author: view.created_by,
    });
    work.signal.throwIfAborted();
    await setBiRunRows(work.db, work.workspaceId, work.run.id, read.result.row_count);
    await updateInsightViewRow(
      work.db,
      work.workspaceId,
      viewId,
      viewRefreshed(work.run.id, now, read.result),
    );
    return { resultRef: viewId, rowCount: read.result.row_count };
  },
};
