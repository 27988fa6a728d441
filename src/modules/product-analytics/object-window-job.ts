// The Object Analytics snapshot job: every hour (10 past, so the snapshot reaches the previous hour) it
// rebuilds the 7d/30d/90d snapshots of each workspace with rollups in the last 90 days, stalest first and at
// most MAX_WORKSPACES a run, and drops late-change markers no read looks at any more. A workspace whose
// rollups are gone has its snapshot emptied by the rebuild.
import { everyInterval } from '../../jobs/interval-task.ts';
import type { JobDefinition } from '../../jobs/types.ts';
import { HOUR, iso } from './app-event-window.ts';
import {
  analyzeObjectWindows,
  deleteLateMarkers,
  rebuildObjectWindows,
  snapshotHour,
  workspacesForObjectWindows,
} from './object-window-store.ts';

const WINDOW_HOURS = 90 * 24;
const MAX_WORKSPACES = 200;
/** Late markers are read for snapshots up to a few hours old (object-window-read.ts): keep 12 hours. */
const MARKERS_KEPT = 12 * HOUR;
const SYSTEM = { system: true } as const;

/**
 * Rebuilds the snapshots of every workspace that needs it (its snapshot is older than this hour's), up to
 * `limit` of them, stalest first; returns how many were rebuilt. The benchmark calls it after seeding.
 */
export async function rebuildStaleObjectWindows(
  db: Parameters<typeof rebuildObjectWindows>[0],
  now: Date,
  limit = MAX_WORKSPACES,
  signal?: AbortSignal,
  read = db,
): Promise<number> {
  const asOf = iso(snapshotHour(now));
  const since = iso(snapshotHour(now) - WINDOW_HOURS * HOUR);
  const stale = (await workspacesForObjectWindows(db, since, SYSTEM))
    .filter((w) => w.as_of_hour === null || w.as_of_hour < asOf)
    .sort((a, b) => (a.as_of_hour ?? '').localeCompare(b.as_of_hour ?? ''))
    .slice(0, limit);
  let rebuilt = 0;
  for (const workspace of stale) {
    if (signal?.aborted) break;
    await rebuildObjectWindows(db, workspace.id, now, read);
    rebuilt++;
  }
  return rebuilt;
}

export const objectWindowsJob: JobDefinition<Record<string, never>> = {
  name: 'app-events.object-windows',
  retryLimit: 1,
  timeoutSeconds: 1800,
  run: async (job, env) => {
    const now = env.clock.now();
    // The grouping reads run on the heavy-read connections: on SQLite off the main thread, so neither the
    // writer nor other tenants' requests wait for it.
    const read = env.pipeline?.database.heavy ?? env.db;
    const rebuilt = await rebuildStaleObjectWindows(env.db, now, MAX_WORKSPACES, job.signal, read);
    await deleteLateMarkers(env.db, iso(now.getTime() - MARKERS_KEPT), SYSTEM);
    if (rebuilt) {
      await analyzeObjectWindows(env.db, SYSTEM);
      env.logger.info({ rebuilt }, 'object analytics snapshots rebuilt');
    }
  },
};

/** Enqueues the snapshot job at 10 past every hour (keyed: one node of a deployment runs it). */
export const objectWindowsSweep = everyInterval(
  'app-events.object-windows-sweep',
  objectWindowsJob.name,
  HOUR,
  10 * 60_000,
);
