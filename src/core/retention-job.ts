// Retention of the platform's append-only tables, an hourly background job (never on a request's path):
// - call events: raw rows for WOS_CALL_EVENT_RETENTION_DAYS (400), then rolled up into call_event_months
//   (kept forever) in the transaction that deletes them (call-event-months.ts);
// - outbox events: deleted 7 days after publication (published = every subscribed consumer handled it);
// - audit events: kept, unless WOS_AUDIT_RETENTION_DAYS is set.
// On PostgreSQL call_events and audit_events are partitioned by month: a month goes when all of it is past
// the window (a row stays at most a month longer than the window), and the job makes the coming months'
// partitions ahead of their rows; rows in the default partition are deleted in batches. On SQLite rows are
// deleted in batches (5,000 rows a statement, at most 20 statements per table, and per workspace for
// call events, in one run): a backlog is worked off over runs.
import { sql } from 'kysely';
import {
  dropMonthPartitionsBefore,
  ensureMonthPartitions,
  expiredMonthPartitions,
  isPostgres,
} from '../db/month-partitions.ts';
import { everyInterval } from '../jobs/interval-task.ts';
import type { JobDefinition, JobEnv } from '../jobs/types.ts';
import { rollUpAndDropPartition, rollUpOldestPostgres, rollUpOldestSqlite } from './call-event-months.ts';
import {
  allWorkspaceIds,
  deleteOlderPostgres,
  deleteOldestAuditSqlite,
  deletePublishedOutbox,
} from './retention-store.ts';

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;
export const OUTBOX_RETENTION_DAYS = 7;
/** How far ahead month partitions are made: the current month and the next two. */
const AHEAD_MS = 62 * DAY_MS;

export interface RetentionLimits {
  /** Rows per statement (one short transaction each). */
  batch: number;
  /** Statements per table in one run. */
  maxBatches: number;
}

const DEFAULT_LIMITS: RetentionLimits = { batch: 5000, maxBatches: 20 };

export interface RetentionReport {
  callEvents: number;
  auditEvents: number;
  outboxEvents: number;
  dropped: string[];
  created: string[];
}

/** Repeats `step` while it removes a whole batch, at most maxBatches times. */
async function inBatches(
  limits: RetentionLimits,
  signal: AbortSignal | undefined,
  step: () => Promise<number>,
): Promise<number> {
  let total = 0;
  for (let i = 0; i < limits.maxBatches && !signal?.aborted; i++) {
    const gone = await step();
    total += gone;
    if (gone < limits.batch) break;
  }
  return total;
}

/** One retention pass over call events, audit events and the outbox (the job's body; tests call it too). */
export async function runRetention(
  env: Pick<JobEnv, 'db' | 'config' | 'clock'>,
  signal?: AbortSignal,
  limits: RetentionLimits = DEFAULT_LIMITS,
): Promise<RetentionReport> {
  const { db, config } = env;
  const now = env.clock.now();
  const postgres = isPostgres(db);
  const report: RetentionReport = {
    callEvents: 0,
    auditEvents: 0,
    outboxEvents: 0,
    dropped: [],
    created: [],
  };

  const callCutoff = new Date(now.getTime() - config.callEventRetentionDays * DAY_MS);
  if (postgres) {
    for (const partition of await expiredMonthPartitions(db, 'call_events', callCutoff)) {
      if (signal?.aborted) break;
      await rollUpAndDropPartition(db, partition);
      report.dropped.push(partition);
    }
    report.callEvents = await inBatches(limits, signal, () =>
      rollUpOldestPostgres(db, 'call_events_default', callCutoff.toISOString(), limits.batch),
    );
  } else {
    for (const workspaceId of await allWorkspaceIds(db, { system: true })) {
      if (signal?.aborted) break;
      report.callEvents += await inBatches(limits, signal, () =>
        db
          .transaction()
          .execute((trx) => rollUpOldestSqlite(trx, workspaceId, callCutoff.toISOString(), limits.batch)),
      );
    }
  }

  if (config.auditRetentionDays !== null) {
    const auditCutoff = new Date(now.getTime() - config.auditRetentionDays * DAY_MS);
    if (postgres) {
      report.dropped.push(...(await dropMonthPartitionsBefore(db, 'audit_events', auditCutoff)));
      report.auditEvents = await inBatches(limits, signal, () =>
        deleteOlderPostgres(db, 'audit_events_default', auditCutoff.toISOString(), limits.batch),
      );
    } else {
      report.auditEvents = await inBatches(limits, signal, () =>
        deleteOldestAuditSqlite(db, auditCutoff.toISOString(), limits.batch),
      );
    }
  }

  const outboxCutoff = new Date(now.getTime() - OUTBOX_RETENTION_DAYS * DAY_MS).toISOString();
  report.outboxEvents = await inBatches(limits, signal, () =>
    deletePublishedOutbox(db, postgres, outboxCutoff, limits.batch),
  );

  if (postgres) {
    const ahead = new Date(now.getTime() + AHEAD_MS);
    for (const table of ['call_events', 'audit_events'] as const) {
      report.created.push(...(await ensureMonthPartitions(db, table, now, ahead)));
    }
  }
  return report;
}

export const retentionJob: JobDefinition<Record<string, never>> = {
  name: 'platform.retention',
  retryLimit: 1,
  timeoutSeconds: 600,
  run: async (job, env) => {
    const report = await runRetention(env, job.signal);
    const { callEvents, auditEvents, outboxEvents, dropped, created } = report;
    if (callEvents || auditEvents || outboxEvents || dropped.length || created.length) {
      env.logger.info(report, 'retention');
    }
  },
};

/** Enqueues the retention job once an hour, 20 past (keyed: one node of a deployment runs it). */
export const retentionSweep = everyInterval(
  'platform.retention-sweep',
  retentionJob.name,
  HOUR_MS,
  20 * 60_000,
);

/**
 * SQLite's query planner statistics: PRAGMA optimize, hourly, as SQLite advises for long-lived connections
 * (the service keeps one open for its life). It re-analyzes only tables whose size changed a lot since their
 * last statistics (0x10000: checking every table, not only those this connection used lately) and sets
 * itself a temporary analysis limit (0x10), so a run costs milliseconds even on a large file. Without it
 * the planner never has statistics, and after retention or a bulk load it keeps choosing from stale ones.
 * Nothing to do on PostgreSQL (autovacuum analyzes).
 */
export const sqliteOptimizeJob: JobDefinition<Record<string, never>> = {
  name: 'sqlite.optimize',
  retryLimit: 0,
  timeoutSeconds: 300,
  run: async (_job, env) => {
    if (env.dialect !== 'sqlite') return;
    await sql`pragma optimize = 0x10012`.execute(env.db);
  },
};

/** Enqueues PRAGMA optimize once an hour, 40 past (between the retention jobs' runs). */
export const sqliteOptimizeSweep = everyInterval(
  'sqlite.optimize-sweep',
  sqliteOptimizeJob.name,
  HOUR_MS,
  40 * 60_000,
);
