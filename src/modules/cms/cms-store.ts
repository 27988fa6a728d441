import type { Kysely } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { CmsCollection, CmsEntry, CmsSite, MarketingCampaign, MarketingPost } from './cms-schemas.ts';
import type {
  CampaignStatus,
  CmsCollectionsTable,
  CmsEntriesTable,
  CmsSitesTable,
  EntryStatus,
  MarketingCampaignsTable,
  MarketingChannel,
  MarketingPostsTable,
  PostStatus,
} from './cms-tables.ts';
import type { FieldDefinition } from './entry-fields.ts';

export function toSite(row: CmsSitesTable): CmsSite {
  return {
    id: row.id,
    name: row.name,
    domain: row.domain,
    default_locale: row.default_locale,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toCollection(row: CmsCollectionsTable): CmsCollection {
  return {
    id: row.id,
    site_id: row.site_id,
    key: row.key,
    name: row.name,
    description: row.description,
    fields: JSON.parse(row.fields) as FieldDefinition[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toEntry(row: CmsEntriesTable): CmsEntry {
  return {
    id: row.id,
    site_id: row.site_id,
    collection_id: row.collection_id,
    title: row.title,
    slug: row.slug,
    fields: JSON.parse(row.fields) as Record<string, unknown>,
    status: row.status,
    published_at: row.published_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toCampaign(row: MarketingCampaignsTable): MarketingCampaign {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    channel: row.channel,
    status: row.status,
    budget_cents: row.budget_cents === null ? null : Number(row.budget_cents),
    currency: row.currency,
    starts_at: row.starts_at,
    ends_at: row.ends_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toPost(row: MarketingPostsTable): MarketingPost {
  return {
    id: row.id,
    campaign_id: row.campaign_id,
    channel: row.channel,
    title: row.title,
    body: row.body,
    status: row.status,
    scheduled_at: row.scheduled_at,
    published_at: row.published_at,
    cms_entry_id: row.cms_entry_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function findCollection(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'cms_collections', workspaceId, id);
}

export function findEntry(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'cms_entries', workspaceId, id);
}

export const insertSite = (db: Kysely<DB>, row: CmsSitesTable) => insertRows(db, 'cms_sites', row);
export const insertCollection = (db: Kysely<DB>, row: CmsCollectionsTable) =>
  insertRows(db, 'cms_collections', row);
export const insertEntry = (db: Kysely<DB>, row: CmsEntriesTable) => insertRows(db, 'cms_entries', row);
export const insertCampaign = (db: Kysely<DB>, row: MarketingCampaignsTable) =>
  insertRows(db, 'marketing_campaigns', row);
export const insertPost = (db: Kysely<DB>, row: MarketingPostsTable) =>
  insertRows(db, 'marketing_posts', row);

export function updateEntryRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<CmsEntriesTable>,
) {
  return updateRow(db, 'cms_entries', workspaceId, id, changes);
}

/** The site holding this domain, if any. */
export function siteWithDomain(db: Kysely<DB>, workspaceId: string, domain: string) {
  return db
    .selectFrom('cms_sites')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('domain', '=', domain)
    .executeTakeFirst();
}

/** The collection of the site holding this key, if any. */
export function collectionWithKey(db: Kysely<DB>, workspaceId: string, siteId: string, key: string) {
  return db
    .selectFrom('cms_collections')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('site_id', '=', siteId)
    .where('key', '=', key)
    .executeTakeFirst();
}

/** Of these IDs, those naming an entry of the workspace (reference fields). */
export async function entryIdsIn(db: Kysely<DB>, workspaceId: string, ids: string[]): Promise<Set<string>> {
  const rows = await db
    .selectFrom('cms_entries')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Of these IDs, those naming a live (not archived) asset of the workspace (asset fields). */
export async function liveAssetIdsIn(
  db: Kysely<DB>,
  workspaceId: string,
  ids: string[],
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('assets')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .where('archived_at', 'is', null)
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** The entry holding this slug in the collection, if any. */
export async function entryWithSlug(db: Kysely<DB>, workspaceId: string, collectionId: string, slug: string) {
  return db
    .selectFrom('cms_entries')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where('slug', '=', slug)
    .executeTakeFirst();
}

/** base, or base-2, base-3 ...: the first slug free in the collection (one query). */
export async function freeSlug(db: Kysely<DB>, workspaceId: string, collectionId: string, base: string) {
  const rows = await db
    .selectFrom('cms_entries')
    .select('slug')
    .where('workspace_id', '=', workspaceId)
    .where('collection_id', '=', collectionId)
    .where((eb) => eb.or([eb('slug', '=', base), eb('slug', 'like', `${base}-%`)]))
    .execute();
  const taken = new Set(rows.map((r) => r.slug));
  if (!taken.has(base)) return base;
  let n = 2;
  while (taken.has(`${base}-${n}`)) n++;
  return `${base}-${n}`;
}

export async function listSites(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { query?: string },
  page: PageRequest,
) {
  const query = db.selectFrom('cms_sites').selectAll().where('workspace_id', '=', workspaceId);
  const result = await fetchSearchPage(db, query, page, {
    table: 'cms_sites',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toSite) };
}

export async function listCollections(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { site_id?: string; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('cms_collections').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.site_id) query = query.where('site_id', '=', filters.site_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'cms_collections',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toCollection) };
}

export async function searchEntries(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { site_id?: string; collection_id?: string; status?: EntryStatus; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('cms_entries').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.site_id) query = query.where('site_id', '=', filters.site_id);
  if (filters.collection_id) query = query.where('collection_id', '=', filters.collection_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchSearchPage(db, query, page, {
    table: 'cms_entries',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toEntry) };
}

export async function listCampaigns(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: CampaignStatus; channel?: MarketingChannel; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('marketing_campaigns').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.channel) query = query.where('channel', '=', filters.channel);
  const result = await fetchSearchPage(db, query, page, {
    table: 'marketing_campaigns',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toCampaign) };
}

export async function listPosts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: {
    status?: PostStatus;
    channel?: MarketingChannel;
    campaign_id?: string;
    cms_entry_id?: string;
    query?: string;
  },
  page: PageRequest,
) {
  let query = db.selectFrom('marketing_posts').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.channel) query = query.where('channel', '=', filters.channel);
  if (filters.campaign_id) query = query.where('campaign_id', '=', filters.campaign_id);
  if (filters.cms_entry_id) query = query.where('cms_entry_id', '=', filters.cms_entry_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'marketing_posts',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toPost) };
}
