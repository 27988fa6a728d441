// Row types of the saved BI objects (migration 0022; in BiTables): reports, dashboards and insight views.
// JSON columns hold text; timestamps are ISO 8601 UTC; created_by is the creating credential's ID.

export const VISUALIZATIONS = ['table', 'bar', 'line', 'area', 'pie', 'number'] as const;
export type Visualization = (typeof VISUALIZATIONS)[number];

/**
 * What a refreshable object keeps of its refreshes. Its latest run may also be a schedule's (see
 * refresh-state.ts): a failed scheduled run rolls back the work's writes, so its status is read from runs.
 */
export interface RefreshColumns {
  /** The latest refresh run this object recorded itself (manual, or a scheduled one that succeeded). */
  last_run_id: string | null;
  /** When a refresh last succeeded. */
  last_refreshed_at: string | null;
  /** JSON: the result of that refresh ({columns, rows, row_count, truncated}). */
  last_result: string | null;
}

export interface BiReportsTable extends RefreshColumns {
  workspace_id: string;
  id: string;
  name: string;
  description: string | null;
  dataset_key: string;
  /** JSON: the query definition (query-definition.ts). */
  definition: string;
  visualization: Visualization;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export interface BiDashboardsTable {
  workspace_id: string;
  id: string;
  name: string;
  description: string | null;
  /** JSON array of tiles: {title, ref: {type, id}, position: {x, y, w, h}}. */
  tiles: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}

export type InsightSourceType = 'object_analytics' | 'bi_template' | 'bi_dataset';

export interface BiInsightViewsTable extends RefreshColumns {
  workspace_id: string;
  id: string;
  name: string;
  question: string | null;
  source_type: InsightSourceType;
  /** JSON: the source object as sent (its type's fields only). */
  source: string;
  report_style: Visualization;
  /** JSON array of column names. */
  dimensions: string;
  /** JSON array of measures (query-definition.ts MeasureSchema). */
  measures: string;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}
