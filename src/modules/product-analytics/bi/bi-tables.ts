// Row types of Custom BI's tables (migration 0016; merged into DB through the product_analytics_bi module).
// JSON columns hold text; timestamps are ISO 8601 UTC strings; created_by is the creating credential's ID.
import type { BiDashboardsTable, BiInsightViewsTable, BiReportsTable } from './bi-object-tables.ts';
import type { BiExportsTable } from './export-tables.ts';
import type { BiScheduledArtifactsTable } from './schedule-tables.ts';

/** A custom dataset: a governed subset of a template (columns, fixed filters, descriptions). */
export interface BiDatasetsTable {
  workspace_id: string;
  id: string;
  /** Unique per workspace, never a template key; how queries address it. */
  key: string;
  name: string;
  description: string | null;
  template_key: string;
  /** JSON array of the template's column names it exposes. */
  columns: string;
  /** JSON array of filters ({column, operator, value}) every query of it applies. */
  filters: string;
  /** JSON object: column name -> description that replaces the template's. */
  column_descriptions: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/** A saved query: its definition as run, and its latest run. */
export interface BiQueriesTable {
  workspace_id: string;
  id: string;
  name: string | null;
  dataset_key: string;
  /** JSON: the query definition (query-definition.ts). */
  definition: string;
  created_by: string | null;
  last_run_id: string | null;
  last_run_at: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export type MetricStatus = 'draft' | 'approved' | 'deprecated';
export type MetricFormat = 'number' | 'money' | 'percent';

/** A governed metric: an expression of the metric grammar over one dataset's columns. */
export interface BiMetricsTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  description: string | null;
  dataset_key: string;
  expression: string;
  format: MetricFormat;
  time_column: string | null;
  /** JSON array of strings. */
  synonyms: string;
  /** JSON array of strings. */
  example_questions: string;
  status: MetricStatus;
  /** The deterministic SQL of the expression over its dataset (this database's dialect), for lineage. */
  compiled_sql: string;
  /** JSON array: the values of the compiled SQL's parameters, in order. */
  sql_parameters: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

/**
 * What a BI run adds to its row in the platform's runs table: every BI run (query, refresh, export,
 * schedule) has one, which is what GET /v1/bi/runs lists.
 */
export interface BiRunDetailsTable {
  workspace_id: string;
  run_id: string;
  /** JSON array of {type, id}: the saved query, report, export, schedule or dataset it ran for. */
  related: string;
  row_count: number | null;
  created_at: string;
}

/**
 * The daily call-event rollup (migration 0027): one row per workspace, UTC day (ISO midnight, as
 * call_events.occurred_at is written) and group of the columns it keeps; the measures are sums.
 */
export interface CallEventDaysTable {
  workspace_id: string;
  day: string;
  kind: string;
  route: string;
  method: string;
  credential_path: string;
  http_status: number;
  error_code: string | null;
  calls: number;
  failed_calls: number;
  units: number;
  billed_units: number;
  duration_ms: number;
}

/** Which days call_event_days covers: [rolled_from, rolled_until), UTC midnights; one row, id call_events. */
export interface CallEventDaysStateTable {
  id: string;
  rolled_from: string;
  rolled_until: string;
}

export interface BiTables {
  bi_scheduled_artifacts: BiScheduledArtifactsTable;
  bi_datasets: BiDatasetsTable;
  bi_queries: BiQueriesTable;
  bi_metrics: BiMetricsTable;
  bi_run_details: BiRunDetailsTable;
  bi_exports: BiExportsTable;
  bi_reports: BiReportsTable;
  bi_dashboards: BiDashboardsTable;
  bi_insight_views: BiInsightViewsTable;
  call_event_days: CallEventDaysTable;
  call_event_days_state: CallEventDaysStateTable;
}
