// What a schedule can refresh, by target type. Each BI part that owns a schedulable object adds one line to
// SCHEDULE_TARGETS (a report, an export, an insight view); a type without an entry cannot be scheduled yet
// (create answers validation_failed on target.type).
import type { RunWorkContext } from '../../../core/run-job.ts';
import { exportScheduleTarget } from './export-schedule-target.ts';
import { insightViewScheduleTarget } from './insight-view-refresh.ts';
import { reportScheduleTarget } from './report-refresh.ts';
import { queryScheduleTarget } from './schedule-query-target.ts';
import type { ScheduleTargetType } from './schedule-tables.ts';

export interface ScheduleTarget {
  /**
   * The record type (record-types.ts) of the target: a create checks the ID through its lookup (another
   * workspace's, a missing or an archived object is resource_not_found), and every scheduled run reads it
   * again through get_record on the owner's behalf before refreshing.
   */
  recordType: string;
  /**
   * The refresh a scheduled run does, inside the run's work (src/core/run-job.ts): call registry tools with
   * work.call (on the owner's behalf, through the pipeline) and read with work.reads. A thrown ServiceError
   * fails the run with its code and message (retried when the catalogue says it is retryable).
   */
  refresh(
    work: RunWorkContext,
    targetId: string,
  ): Promise<{ resultRef?: string | null; rowCount?: number | null }>;
}

export const SCHEDULE_TARGETS: Partial<Record<ScheduleTargetType, ScheduleTarget>> = {
  query: queryScheduleTarget,
  report: reportScheduleTarget,
  insight_view: insightViewScheduleTarget,
  export: exportScheduleTarget,
};
