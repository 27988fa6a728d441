// Queries of Analytics Sites and their keys.
import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { AnalyticsSite } from './analytics-schemas.ts';
import type { AnalyticsSiteKeysTable, AnalyticsSitesTable, SiteStatus } from './analytics-tables.ts';

/** A site's row with the keys a read shows: the current one and the latest rotated-out one still working. */
export interface SiteRow extends AnalyticsSitesTable {
  site_key: string;
  previous_key: { site_key: string; expires_at: string } | null;
}

export function toSite(row: SiteRow): AnalyticsSite {
  return {
    id: row.id,
    name: row.name,
    site_key: row.site_key,
    previous_key: row.previous_key,
    allowed_origins: JSON.parse(row.allowed_origins) as string[],
    allowed_apps: JSON.parse(row.allowed_apps) as string[],
    validation_mode: row.validation_mode,
    events_per_minute: Number(row.events_per_minute),
    daily_quota: Number(row.daily_quota),
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
    archived_at: row.archived_at,
  };
}

type KeyRow = Pick<AnalyticsSiteKeysTable, 'site_id' | 'key' | 'created_at' | 'expires_at'>;

/**
 * The current key (expires_at null) and unexpired rotated keys of some sites of a workspace, as their
 * SiteRows. A key expiring at `now` has stopped working. Of several rotated keys still working, the one
 * minted last is shown (the one rotated out last); ties fall to the later expiry, then to the key itself.
 */
async function withKeys(
  db: Kysely<DB>,
  workspaceId: string,
  sites: AnalyticsSitesTable[],
  now: string,
): Promise<SiteRow[]> {
  if (sites.length === 0) return [];
  const keys: KeyRow[] = await db
    .selectFrom('analytics_site_keys')
    .select(['site_id', 'key', 'created_at', 'expires_at'])
    .where('workspace_id', '=', workspaceId)
    .where(
      'site_id',
      'in',
      sites.map((s) => s.id),
    )
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)]))
    .execute();
  const later = (a: KeyRow, b: KeyRow) =>
    a.created_at !== b.created_at
      ? a.created_at > b.created_at
      : a.expires_at !== b.expires_at
        ? a.expires_at! > b.expires_at!
        : a.key > b.key;
  return sites.map((site) => {
    const own = keys.filter((k) => k.site_id === site.id);
    const current = own.find((k) => k.expires_at === null);
    // Every site is created with a key and a rotation replaces it in the same transaction.
    if (!current) throw new Error(`Analytics site ${site.id} has no current key`);
    const previous = own
      .filter((k) => k.expires_at !== null)
      .reduce<KeyRow | undefined>((best, k) => (!best || later(k, best) ? k : best), undefined);
    return {
      ...site,
      site_key: current.key,
      previous_key: previous ? { site_key: previous.key, expires_at: previous.expires_at! } : null,
    };
  });
}

/** One site with its keys, archived or not (the caller decides what an archived site means). */
export async function findSite(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  now: string,
): Promise<SiteRow | undefined> {
  const site = await findRow(db, 'analytics_sites', workspaceId, id);
  if (!site) return undefined;
  return (await withKeys(db, workspaceId, [site], now))[0];
}

/** Sites not archived, newest first, filtered by status and a case-insensitive match on the name. */
export async function listSites(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: SiteStatus; query?: string },
  page: PageRequest,
  now: string,
) {
  let query = db
    .selectFrom('analytics_sites')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchSearchPage(db, query, page, {
    table: 'analytics_sites',
    workspaceId,
    text: filters.query,
  });
  const rows = await withKeys(db, workspaceId, result.items, now);
  return { ...result, items: rows.map(toSite) };
}

/** A new site with its first key (the row and the key carry the workspace ID). */
export async function insertSite(
  db: Kysely<DB>,
  row: AnalyticsSitesTable,
  key: AnalyticsSiteKeysTable,
): Promise<void> {
  await insertRows(db, 'analytics_sites', row);
  await db.insertInto('analytics_site_keys').values(key).execute();
}

export function updateSiteRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AnalyticsSitesTable>,
): Promise<void> {
  return updateRow(db, 'analytics_sites', workspaceId, id, changes);
}

/**
 * Rotates a site's key: the current key, and any rotated key working past `expiresAt`, stop at
 * `expiresAt`; `next` becomes the current key. Call it after updating the site's row in the same
 * transaction: that row lock makes concurrent rotations of one site run one after the other (PostgreSQL).
 */
export async function rotateKey(
  db: Kysely<DB>,
  workspaceId: string,
  siteId: string,
  next: AnalyticsSiteKeysTable,
  expiresAt: string,
): Promise<void> {
  await db
    .updateTable('analytics_site_keys')
    .set({ expires_at: expiresAt })
    .where('workspace_id', '=', workspaceId)
    .where('site_id', '=', siteId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', expiresAt)]))
    .execute();
  await db.insertInto('analytics_site_keys').values(next).execute();
}

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

/** Events of the minute buckets from `minutes - 1` minutes before now's minute up to now's. */
export async function eventsSince(
  db: Kysely<DB>,
  workspaceId: string,
  site: string,
  now: Date,
  minutes: number,
) {
  const first = new Date(now.getTime() - (minutes - 1) * 60_000).toISOString().slice(0, 16);
  const row = await db
    .selectFrom('analytics_site_counters')
    .select(sql<number | string | null>`sum(events)`.as('events'))
    .where('workspace_id', '=', workspaceId)
    .where('site_id', '=', site)
    // 'day:' buckets sort before 'minute:', so this bound keeps minute buckets only.
    .where('bucket', '>=', `minute:${first}`)
    .executeTakeFirst();
  return Number(row?.events ?? 0);
}
