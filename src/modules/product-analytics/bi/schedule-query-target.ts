// A saved query as a schedule target: each occurrence runs its definition again (on the heavy-read path, as
// the schedule's owner for metric governance), records the rows on the scheduled BI run and points the
// saved query at that run (its last_run_id and last_run_at).
import { notFound } from '../../../core/errors.ts';
import { findQuery, setQueryLastRun } from './bi-store.ts';
import { runQueryDefinition, setBiRunRows } from './run-query.ts';
import type { ScheduleTarget } from './schedule-targets.ts';

export const queryScheduleTarget: ScheduleTarget = {
  recordType: 'bi_query',
  refresh: async (work, queryId) => {
    const query = await findQuery(work.db, work.workspaceId, queryId);
    if (!query) throw notFound('saved query');
    // The service clock's time of this attempt: relative ranges (last_7_days) are read at it.
    const now = work.run.started_at ?? work.run.queued_at;
    const { result } = await runQueryDefinition(work.reads, work.workspaceId, query.definition, {
      dialect: work.dialect,
      now,
      credentialId: work.run.credential_id,
    });
    work.signal.throwIfAborted();
    await setBiRunRows(work.db, work.workspaceId, work.run.id, result.row_count);
    await setQueryLastRun(work.db, work.workspaceId, queryId, { id: work.run.id, at: now });
    return { resultRef: queryId, rowCount: result.row_count };
  },
};
