/** The SQLite job queue (PostgreSQL installations use pg-boss's own schema and leave this table empty). */
export interface JobsTable {
  id: string;
  name: string;
  payload: string;
  state: 'queued' | 'active' | 'completed' | 'failed';
  run_at: string;
  attempts: number;
  dedup_key: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

export interface JobsTables {
  job_queue: JobsTable;
}
