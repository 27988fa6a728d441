// Row type of the scheduled artifacts table (migration 0021; in BiTables). Timestamps are ISO 8601 UTC text.
import type { Cadence, Weekday } from './schedule-rules.ts';

export type ScheduleStatus = 'active' | 'paused';
export type ScheduleTargetType = 'report' | 'export' | 'query' | 'insight_view';

export interface BiScheduledArtifactsTable {
  workspace_id: string;
  id: string;
  name: string;
  target_type: ScheduleTargetType;
  target_id: string;
  cadence: Cadence;
  minute: number;
  hour: number | null;
  weekday: Weekday | null;
  /** '1'..'31' or 'last' (text, so the month's last day needs no magic number). */
  day_of_month: string | null;
  timezone: string;
  status: ScheduleStatus;
  /** The next occurrence; null while paused. The sweep finds due rows by (status, next_run_at). */
  next_run_at: string | null;
  /** When the scheduler last started a run, and that run (its status is the schedule's last status). */
  last_run_at: string | null;
  last_run_id: string | null;
  /** The credential that created it: every scheduled refresh runs on its behalf. */
  owner_credential_id: string;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}
