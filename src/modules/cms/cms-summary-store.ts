import type { Kysely } from 'kysely';
import { countOf, readRecordCounters } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';

/** get_workspace_summary's cms section, from the record counters. */
export async function cmsCounts(db: Kysely<DB>, workspaceId: string) {
  const c = await readRecordCounters(db, workspaceId, ['cms_entries', 'marketing_campaigns']);
  return {
    entries: c.cms_entries.total,
    published_entries: countOf(c.cms_entries, ['published']),
    active_campaigns: countOf(c.marketing_campaigns, ['active']),
  };
}
