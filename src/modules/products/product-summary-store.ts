import type { Kysely } from 'kysely';
import { countOf, readRecordCounters } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';

/** Product counts for get_workspace_summary, from the record counters. */
export async function productCounts(db: Kysely<DB>, workspaceId: string) {
  const inFlight = ['planned', 'in_progress'];
  const c = await readRecordCounters(db, workspaceId, [
    'products',
    'product_releases',
    'product_roadmap_items',
  ]);
  return {
    active_products: countOf(c.products, ['active']),
    upcoming_releases: countOf(c.product_releases, inFlight),
    roadmap_items_in_flight: countOf(c.product_roadmap_items, inFlight),
  };
}
