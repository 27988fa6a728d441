// Retention of application events: raw events and their event_id ledger for the workspace's retention
// (WOS_APP_EVENT_RETENTION_DAYS, or the operator's entitlement app_event_retention_days), rollups and
// actor sketches for two years, in bounded batches. On PostgreSQL whole month partitions older than every
// workspace's retention are dropped, and the coming months' partitions are made ahead of their events.
import { dropMonthPartitionsBefore, ensureMonthPartitions } from '../../db/month-partitions.ts';
import { everyInterval } from '../../jobs/interval-task.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import {
  deleteOlderThan,
  deleteOldestBucket,
  deleteOldSiteCounters,
  retentionOf,
  workspacesForRetention,
} from './app-event-store.ts';

const DAY_MS = 86_400_000;
const AGGREGATE_DAYS = 731;
const EVERY_MS = 60 * 60 * 1000;
const BATCH = 5000;
/** Statements per workspace and table in one run: a backlog is worked off over several runs. */
const MAX_BATCHES = 20;
const SYSTEM = { system: true } as const;

export const appEventRetentionJob: JobDefinition<Record<string, never>> = {
  name: 'app-events.retention',
  retryLimit: 1,
  timeoutSeconds: 600,
  run: async (job, env) => {
    const now = env.clock.now();
    const defaultDays = env.config.appEventRetentionDays;
    const workspaces = await workspacesForRetention(env.db, SYSTEM);
    let longest = defaultDays;
    let deleted = 0;
    for (const workspace of workspaces) {
      if (job.signal.aborted) return;
      const days = retentionOf(workspace.entitlements) ?? defaultDays;
      longest = Math.max(longest, days);
      const rawCutoff = new Date(now.getTime() - days * DAY_MS).toISOString();
      for (const table of ['app_events', 'app_event_ids'] as const) {
        for (let i = 0; i < MAX_BATCHES && !job.signal.aborted; i++) {
          const gone = await deleteOlderThan(env.db, workspace.id, table, rawCutoff, BATCH);
          deleted += gone;
          if (gone < BATCH) break;
        }
      }
      const aggregateCutoff = new Date(now.getTime() - AGGREGATE_DAYS * DAY_MS).toISOString();
      const cutoffs = {
        app_event_rollups: aggregateCutoff,
        app_event_hour_totals: aggregateCutoff,
        app_event_day_rollups: aggregateCutoff.slice(0, 10),
        app_event_actor_sketches: aggregateCutoff.slice(0, 10),
      };
      for (const [table, cutoff] of Object.entries(cutoffs) as [keyof typeof cutoffs, string][]) {
        for (let i = 0; i < MAX_BATCHES && !job.signal.aborted; i++) {
          const gone = await deleteOldestBucket(env.db, workspace.id, table, cutoff);
          deleted += gone;
          if (gone === 0) break;
        }
      }
    }
    await deleteOldSiteCounters(env.db, now, SYSTEM);
    const dropped = await dropMonthPartitionsBefore(
      env.db,
      'app_events',
      new Date(now.getTime() - longest * DAY_MS),
    );
    const created = await ensureMonthPartitions(
      env.db,
      'app_events',
      now,
      new Date(now.getTime() + 62 * DAY_MS),
    );
    if (deleted || dropped.length || created.length) {
      env.logger.info({ deleted, dropped, created }, 'app event retention');
    }
  },
};

/** Enqueues the retention job once an hour (keyed: one node of a deployment runs it). */
export const appEventRetentionSweep = everyInterval(
  'app-events.retention-sweep',
  appEventRetentionJob.name,
  EVERY_MS,
);
