// Deleting bytes nobody can reach any more: partial files of writes that never finished (at start-up, and
// stale ones by the job), staged uploads of assets that no longer take them, and the content of archived
// and expired assets. A periodic task enqueues one keyed job per interval: one node of a deployment runs it.
import type { Logger } from 'pino';
import type { Config } from '../../config.ts';
import { everyInterval } from '../../jobs/interval-task.ts';
import type { JobDefinition, JobEnv } from '../../jobs/types.ts';
import { assetsWithContentToDelete, findAsset, markContentDeleted } from './asset-store.ts';
import { storageFor } from './storage/configured.ts';
import { stagingKey, windowStart } from './upload-lifecycle.ts';

const CLEANUP_EVERY_MS = 10 * 60 * 1000;
/** A write in progress keeps touching its partial file; one untouched this long belongs to no live request. */
const STALE_PARTIAL_MS = 60 * 60 * 1000;
const BATCH = 200;

/**
 * At start-up: a store that cannot be used stops the node with the reason. No write of this process is
 * running yet, so in a store of this node alone every partial file is left over from before; in a shared
 * store other nodes may be writing, and stale partials go with the cleanup job.
 */
export async function prepareStorage(env: { config: Config; logger: Logger }): Promise<void> {
  const storage = storageFor(env.config);
  await storage.verify?.();
  if (storage.shared) return;
  const removed = await storage.removePartials();
  if (removed) env.logger.info({ removed }, 'removed partial asset uploads left by an earlier run');
}

async function removeStagedUploads(env: JobEnv, signal: AbortSignal): Promise<number> {
  const storage = storageFor(env.config);
  const start = windowStart(env.clock.now());
  let removed = 0;
  for (const key of await storage.list('uploads')) {
    if (signal.aborted) break;
    const [, workspaceId, assetId] = key.split('/');
    // The staged key names its workspace: the lookup is scoped to it (findAsset skips archived assets).
    const row = workspaceId && assetId ? await findAsset(env.db, workspaceId, assetId) : undefined;
    const takesUploads =
      row !== undefined && stagingKey(row) === key && row.status === 'pending' && row.created_at >= start;
    if (takesUploads) continue;
    await storage.remove(key);
    removed++;
  }
  return removed;
}

async function deleteUnreachableContent(env: JobEnv, signal: AbortSignal): Promise<number> {
  const storage = storageFor(env.config);
  let deleted = 0;
  while (!signal.aborted) {
    const now = env.clock.now();
    const rows = await assetsWithContentToDelete(env.db, windowStart(now), BATCH, { system: true });
    for (const row of rows) {
      await storage.remove(row.storage_key);
      await storage.remove(stagingKey(row));
      await markContentDeleted(env.db, row.workspace_id, row.id, now.toISOString());
    }
    deleted += rows.length;
    if (rows.length < BATCH) break;
  }
  return deleted;
}

export const assetCleanupJob: JobDefinition<Record<string, never>> = {
  name: 'assets.cleanup',
  retryLimit: 1,
  run: async (job, env) => {
    // File times are on the system clock, whatever clock the service runs on.
    const partials = await storageFor(env.config).removePartials(new Date(Date.now() - STALE_PARTIAL_MS));
    const staged = await removeStagedUploads(env, job.signal);
    const contents = await deleteUnreachableContent(env, job.signal);
    if (partials || staged || contents)
      env.logger.info({ partials, staged, contents }, 'asset cleanup deleted unreachable bytes');
  },
};

export const assetCleanupSweep = everyInterval(
  'assets.cleanup-sweep',
  assetCleanupJob.name,
  CLEANUP_EVERY_MS,
);
