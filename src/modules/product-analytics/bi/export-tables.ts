// Row type of the BI exports table (migration 0023; in BiTables). Timestamps are ISO 8601 UTC text.

export type ExportFormat = 'csv' | 'jsonl';

export interface BiExportsTable {
  workspace_id: string;
  id: string;
  name: string;
  format: ExportFormat;
  /** The saved query (bi_queries) it runs. */
  query_id: string;
  /**
   * The run that made (or is making) its file: the start's run, then each scheduled refresh that completed.
   * The export's status, attempts and error are this run's, read on each read.
   */
  run_id: string;
  /** The file (assets table), once a run completed; a refresh points it at the new file. */
  asset_id: string | null;
  row_count: number | null;
  size_bytes: number | null;
  checksum_sha256: string | null;
  created_by: string | null;
  created_at: string;
  updated_at: string;
  archived_at: string | null;
}
