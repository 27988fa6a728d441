import type { Kysely } from 'kysely';

// Execution planes, execution jobs with their log lines, and lineage edges (issue 13 items 1, 3, 4).
// Every key starts with workspace_id, except the lease sweep's index: the periodic task looks for expired
// leases across workspaces (only claimed jobs have one, so it stays small).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('data_agent_execution_planes')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('capabilities', 'text', (c) => c.notNull())
    .addColumn('config', 'text', (c) => c.notNull())
    .addColumn('lease_seconds', 'integer', (c) => c.notNull())
    // 'native' on the workspace's own plane, else null: the unique index makes its find-or-create race-safe.
    .addColumn('builtin', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_execution_planes_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('data_agent_execution_planes_builtin')
    .unique()
    .on('data_agent_execution_planes')
    .columns(['workspace_id', 'builtin'])
    .execute();

  await db.schema
    .createTable('data_agent_execution_jobs')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('title', 'text')
    .addColumn('job_type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('plane_id', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('output', 'text')
    .addColumn('require_review', 'integer', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('progress', 'integer')
    .addColumn('worker_id', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('run_id', 'text')
    .addColumn('log_count', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('error_message', 'text')
    .addColumn('review_note', 'text')
    .addColumn('reviewed_at', 'text')
    .addColumn('created_by', 'text')
    .addColumn('queued_at', 'text')
    .addColumn('started_at', 'text')
    .addColumn('finished_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_execution_jobs_pk', ['workspace_id', 'id'])
    .execute();
  for (const column of ['status', 'job_type', 'plane_id'] as const) {
    await db.schema
      .createIndex(`data_agent_execution_jobs_${column}`)
      .on('data_agent_execution_jobs')
      .columns(['workspace_id', column, 'id'])
      .execute();
  }
  // An external worker's poll: its plane's queued jobs.
  await db.schema
    .createIndex('data_agent_execution_jobs_plane_status')
    .on('data_agent_execution_jobs')
    .columns(['workspace_id', 'plane_id', 'status', 'id'])
    .execute();
  await db.schema
    .createIndex('data_agent_execution_jobs_lease')
    .on('data_agent_execution_jobs')
    .columns(['lease_expires_at'])
    .execute();

  await db.schema
    .createTable('data_agent_execution_job_logs')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('level', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('logged_at', 'text', (c) => c.notNull())
    .addColumn('recorded_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_execution_job_logs_pk', ['workspace_id', 'job_id', 'seq'])
    .execute();

  // from/to as given; upstream/downstream as data flows (a job reads its upstream, produces its downstream),
  // so a walk follows one pair of columns whatever the relation.
  await db.schema
    .createTable('data_agent_lineage_edges')
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('from_type', 'text', (c) => c.notNull())
    .addColumn('from_id', 'text', (c) => c.notNull())
    .addColumn('to_type', 'text', (c) => c.notNull())
    .addColumn('to_id', 'text', (c) => c.notNull())
    .addColumn('relation', 'text', (c) => c.notNull())
    .addColumn('upstream_type', 'text', (c) => c.notNull())
    .addColumn('upstream_id', 'text', (c) => c.notNull())
    .addColumn('downstream_type', 'text', (c) => c.notNull())
    .addColumn('downstream_id', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('data_agent_lineage_edges_pk', ['workspace_id', 'id'])
    .execute();
  await db.schema
    .createIndex('data_agent_lineage_edges_unique')
    .unique()
    .on('data_agent_lineage_edges')
    .columns(['workspace_id', 'from_type', 'from_id', 'relation', 'to_type', 'to_id'])
    .execute();
  await db.schema
    .createIndex('data_agent_lineage_edges_upstream')
    .on('data_agent_lineage_edges')
    .columns(['workspace_id', 'upstream_type', 'upstream_id', 'id'])
    .execute();
  await db.schema
    .createIndex('data_agent_lineage_edges_downstream')
    .on('data_agent_lineage_edges')
    .columns(['workspace_id', 'downstream_type', 'downstream_id', 'id'])
    .execute();
  await db.schema
    .createIndex('data_agent_lineage_edges_relation')
    .on('data_agent_lineage_edges')
    .columns(['workspace_id', 'relation', 'id'])
    .execute();
}
