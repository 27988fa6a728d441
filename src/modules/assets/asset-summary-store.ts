import type { Kysely } from 'kysely';
import { countOf, readRecordCounters } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';

/** get_workspace_summary's assets section, from the record counters. */
export async function assetCounts(db: Kysely<DB>, workspaceId: string) {
  const { assets } = await readRecordCounters(db, workspaceId, ['assets']);
  return { ready_assets: countOf(assets, ['ready']), pending_assets: countOf(assets, ['pending']) };
}
