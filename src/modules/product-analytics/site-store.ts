// Queries of Analytics Sites and their keys.
import type { Kysely } from 'kysely';
import type { DB } from '../../db/tables.ts';
import type { AnalyticsSitesTable } from './analytics-tables.ts';

/**
 * The site a key opens, across workspaces (the key is the credential), with the key's expiry: null for
 * the current key. Archived sites are included so the caller can refuse them with the right error.
 */
export async function findSiteByKey(
  db: Kysely<DB>,
  key: string,
): Promise<{ site: AnalyticsSitesTable; expiresAt: string | null } | undefined> {
  const row = await db
    .selectFrom('analytics_site_keys as k')
    .innerJoin('analytics_sites as s', (join) =>
      join.onRef('s.workspace_id', '=', 'k.workspace_id').onRef('s.id', '=', 'k.site_id'),
    )
    .selectAll('s')
    .select('k.expires_at as key_expires_at')
    .where('k.key', '=', key)
    .executeTakeFirst();
  if (!row) return undefined;
  const { key_expires_at, ...site } = row;
  return { site, expiresAt: key_expires_at };
}
