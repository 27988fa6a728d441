// How the schema would spread over a Citus cluster (docs/scaling.md): every table is distributed by
// workspace_id, so its primary key and unique indexes start with it (a unique key must contain the
// distribution column), except the tables declared here. test/distribution-keys.test.ts holds the migrated
// schema to this on both databases: a new table either keys by workspace or is declared with its reason.

/** Tables distributed by a column not named workspace_id: the column that holds the workspace's ID. */
export const DISTRIBUTION_COLUMN: Record<string, string> = {
  workspaces: 'id', // the tenants themselves: their id is the workspace_id of every other table
};

/** Tables that stay whole: a reference table (copied to every node) or local (on the coordinator only). */
export const NOT_DISTRIBUTED: Record<string, { placement: 'reference' | 'local'; reason: string }> = {
  installation: { placement: 'reference', reason: 'installation-wide settings (operator token), one row' },
  kysely_migration: { placement: 'local', reason: 'migration bookkeeping, run from the coordinator' },
  kysely_migration_lock: { placement: 'local', reason: 'the migrator’s lock row, beside kysely_migration' },
  job_queue: {
    placement: 'local',
    reason: 'the SQLite job queue; PostgreSQL runs pg-boss in its own schema',
  },
  call_event_days_state: {
    placement: 'local',
    reason: 'one progress row of the installation-wide daily roll-up',
  },
  wos_rate_limits: {
    placement: 'local',
    reason: "rate-limiter-flexible's counters in the library's layout, keyed by '<limit>:<workspace_id>'",
  },
};

/**
 * Workspace-scoped tables that break the rule today, and what each needs before the table can be distributed.
 * Listed rather than changed: each is a schema change of its own.
 */
export const DISTRIBUTION_BLOCKERS: Record<string, string> = {
  credentials:
    'unique token_hash: a bearer token is looked up before its workspace is known; needs a hash → workspace lookup table (reference) or the workspace in the token',
  analytics_site_keys:
    'primary key `key`: a site key is looked up before its workspace is known (browser ingest); needs the same lookup as credentials',
  outbox_failures: 'primary key id alone: becomes (workspace_id, id)',
  mcp_sessions:
    'primary key id alone: a session is named by its Mcp-Session-Id header; becomes (workspace_id, id), the workspace coming from the credential',
};
