// Row types of every table, for Kysely. Platform tables live here; each module declares its own in
// <module>-tables.ts and names them in its definition (ModuleDefinition<identity, Tables>): DB merges
// those of every module in src/modules/module-list.ts.
import type { JobsTables } from '../jobs/jobs-tables.ts';
import type { moduleList } from '../modules/module-list.ts';

export interface InstallationTable {
  key: string;
  value: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  /** JSON object {module: boolean}; a module absent from it is enabled. */
  modules: string;
  /** JSON array of allowed /mcp credential kinds. */
  mcp_auth_methods: string;
  rate_limit_per_minute: number | null;
  credit_units: number | null;
  monthly_cap_units: number | null;
  /** JSON object {resource_type: max count}. */
  entitlements: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface CredentialsTable {
  workspace_id: string;
  id: string;
  kind: 'api_key' | 'mcp_token';
  name: string;
  scopes: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface CallEventsTable {
  workspace_id: string;
  id: string;
  request_id: string;
  occurred_at: string;
  kind: 'api_request' | 'mcp_tool_call' | 'worker_call';
  route: string;
  method: string;
  credential_id: string | null;
  credential_path: string;
  http_status: number;
  error_code: string | null;
  duration_ms: number;
  units: number;
  billed_units: number;
  /** A worker call: the run that caused it. */
  caused_by?: string | null;
}

export interface AuditEventsTable {
  workspace_id: string;
  id: string;
  request_id: string;
  occurred_at: string;
  actor_type: 'api_key' | 'mcp_token' | 'site_key' | 'operator' | 'system';
  actor_credential_id: string | null;
  actor_name: string;
  surface: 'rest' | 'mcp' | 'admin' | 'cli' | 'system' | 'worker';
  tool: string;
  action: string;
  target_type: string;
  target_id: string;
  status: string;
  changed_fields: string;
  /** A system actor working for a caller (a worker call): that caller's credential. */
  on_behalf_of?: string | null;
  /** What caused a system action: the run of a worker call, the delivery that disabled an endpoint. */
  caused_by?: string | null;
}

export interface OutboxEventsTable {
  workspace_id: string;
  id: string;
  request_id: string;
  name: string;
  occurred_at: string;
  target_type: string | null;
  target_id: string | null;
  payload: string;
  published_at: string | null;
}

/** A consumer handled an event that is not yet published (src/core/outbox-relay.ts). */
export interface OutboxConsumptionsTable {
  workspace_id: string;
  consumer: string;
  event_id: string;
  consumed_at: string;
}

/** An event a consumer failed on, until it succeeds, or given up (src/core/outbox-relay.ts). */
export interface OutboxFailuresTable {
  id: string;
  workspace_id: string;
  consumer: string;
  event_id: string;
  event_name: string;
  attempts: number;
  first_failed_at: string;
  last_failed_at: string;
  last_error: string;
  gave_up_at: string | null;
}

/** Long-running work (src/core/runs.ts): written with its job, moved through its states by the job. */
export interface RunsTable {
  workspace_id: string;
  id: string;
  run_type: string;
  module: string;
  /** The operation that started it. */
  operation: string;
  job_name: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'canceled';
  /** manual (a REST or MCP call), worker, schedule, ... */
  trigger: string;
  /** JSON object: what the run was asked to do, small. */
  input_summary: string;
  attempts: number;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  duration_ms: number | null;
  error_code: string | null;
  error_message: string | null;
  result_ref: string | null;
  request_id: string;
  /** The credential on whose behalf it runs. */
  credential_id: string | null;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  workspace_id: string;
  resource_type: string;
  key: string;
  operation: string;
  fingerprint: string;
  resource_id: string | null;
  created_at: string;
}

/**
 * Call events rolled up per month, workspace, route, method, kind and credential path: written by the
 * retention job in the transaction that deletes the raw rows it counts (src/core/call-event-months.ts), so
 * a month's usage is these rows plus the raw rows still kept, and kept forever.
 */
export interface CallEventMonthsTable {
  workspace_id: string;
  /** YYYY-MM of occurred_at (UTC). */
  month: string;
  route: string;
  method: string;
  kind: string;
  credential_path: string;
  calls: number;
  /** Calls answered with an HTTP status of 400 or more. */
  failed_calls: number;
  units: number;
  billed_units: number;
  duration_ms: number;
}

export interface BillingUsageTable {
  workspace_id: string;
  period: string;
  billed_units: number;
}

/** An MCP session (src/surfaces/mcp/mcp-sessions.ts): the profiles enable_toolset added to its listing. */
export interface McpSessionsTable {
  id: string;
  workspace_id: string;
  credential_id: string;
  /** JSON array of profile names, in the order they were enabled. */
  profiles: string;
  created_at: string;
  last_used_at: string;
}

export interface PlatformTables {
  installation: InstallationTable;
  workspaces: WorkspacesTable;
  credentials: CredentialsTable;
  call_events: CallEventsTable;
  call_event_months: CallEventMonthsTable;
  audit_events: AuditEventsTable;
  outbox_events: OutboxEventsTable;
  outbox_consumptions: OutboxConsumptionsTable;
  outbox_failures: OutboxFailuresTable;
  idempotency_keys: IdempotencyKeysTable;
  runs: RunsTable;
  billing_usage: BillingUsageTable;
  mcp_sessions: McpSessionsTable;
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void
  ? I
  : never;

/** The tables of every listed module, merged. */
export type ModuleTables = UnionToIntersection<NonNullable<(typeof moduleList)[number]['tables']>>;

export type DB = PlatformTables & JobsTables & ModuleTables;
