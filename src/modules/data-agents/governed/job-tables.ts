// Row types of execution planes, execution jobs, their log lines and lineage edges (0019-data-agents-jobs).
// JSON columns hold text; timestamps are ISO 8601 UTC text like the rest of the schema.

export interface DataAgentExecutionPlanesTable {
  workspace_id: string;
  id: string;
  name: string;
  /** native | external */
  kind: string;
  /** active | inactive | degraded */
  status: string;
  /** JSON array of job types the plane accepts. */
  capabilities: string;
  /** JSON object of non-secret settings. */
  config: string;
  lease_seconds: number;
  /** JSON array of the credential IDs allowed to claim and report on the plane's jobs ([] on the native). */
  worker_credential_ids: string;
  /** 'native' on the workspace's own plane (unique per workspace), else null. */
  builtin: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentExecutionJobsTable {
  workspace_id: string;
  id: string;
  title: string | null;
  job_type: string;
  status: string;
  trigger: string;
  plane_id: string;
  /** JSON object, validated per job type. */
  input: string;
  /** JSON object {summary, produced: [{type, id}], data} once a runner or worker reported it. */
  output: string | null;
  /** 0 or 1: a finished job waits in needs_review instead of completing. */
  require_review: number;
  attempts: number;
  max_attempts: number;
  progress: number | null;
  worker_id: string | null;
  /** The credential that claimed the job: only it reports on the claim (null before a claim). */
  worker_credential_id: string | null;
  lease_expires_at: string | null;
  /** The native plane's run (runs table) of the current attempt. */
  run_id: string | null;
  log_count: number;
  error_code: string | null;
  error_message: string | null;
  review_note: string | null;
  reviewed_at: string | null;
  created_by: string | null;
  queued_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentExecutionJobLogsTable {
  workspace_id: string;
  job_id: string;
  /** 1, 2, ... per job: the order lines were appended in. */
  seq: number;
  level: string;
  message: string;
  /** When the worker says it logged the line (or when it arrived). */
  logged_at: string;
  recorded_at: string;
}

export interface DataAgentLineageEdgesTable {
  workspace_id: string;
  id: string;
  from_type: string;
  from_id: string;
  to_type: string;
  to_id: string;
  relation: string;
  upstream_type: string;
  upstream_id: string;
  downstream_type: string;
  downstream_id: string;
  /** The execution job that recorded the edge as it ran, else null. */
  job_id: string | null;
  note: string | null;
  created_at: string;
}

/** The tables of execution planes, jobs and lineage, merged into GovernedTables. */
export interface JobTables {
  data_agent_execution_planes: DataAgentExecutionPlanesTable;
  data_agent_execution_jobs: DataAgentExecutionJobsTable;
  data_agent_execution_job_logs: DataAgentExecutionJobLogsTable;
  data_agent_lineage_edges: DataAgentLineageEdgesTable;
}
