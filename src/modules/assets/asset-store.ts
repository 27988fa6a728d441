import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import type { Dialect } from '../../db/database.ts';
import { insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Asset } from './asset-schemas.ts';
import type { AssetStatus, AssetsTable, AssetType } from './asset-tables.ts';
import type { AssetStorage } from './storage/storage.ts';

export function toAsset(row: AssetsTable): Asset {
  return {
    id: row.id,
    asset_type: row.asset_type,
    file_name: row.file_name,
    mime_type: row.mime_type,
    size_bytes: Number(row.size_bytes),
    checksum_sha256: row.checksum_sha256,
    status: row.status,
    related_resource_type: row.related_resource_type,
    related_resource_id: row.related_resource_id,
    ready_at: row.ready_at,
    archived_at: row.archived_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** An asset of the workspace that is not archived. */
export const insertAsset = (db: Kysely<DB>, row: AssetsTable) => insertRows(db, 'assets', row);

export function updateAssetRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<AssetsTable>,
) {
  return updateRow(db, 'assets', workspaceId, id, changes);
}

/**
 * A live asset. `lockOn: 'postgres'` (complete_asset_upload) locks the row until commit there, so
 * completions of one asset take turns; SQLite's one writer already serializes them.
 */
export async function findAsset(db: Kysely<DB>, workspaceId: string, id: string, lockOn?: Dialect) {
  return db
    .selectFrom('assets')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .where('archived_at', 'is', null)
    .$if(lockOn === 'postgres', (query) => query.forUpdate())
    .executeTakeFirst();
}

/**
 * For signed URLs, which carry no credential: the asset by ID alone, archived or not, with the deletion
 * time of its workspace (a deleted workspace's URLs stop working).
 */
export async function findAssetById(db: Kysely<DB>, id: string) {
  return db
    .selectFrom('assets')
    .innerJoin('workspaces', 'workspaces.id', 'assets.workspace_id')
    .selectAll('assets')
    .select('workspaces.deleted_at as workspace_deleted_at')
    .where('assets.id', '=', id)
    .executeTakeFirst();
}

/**
 * The asset_bytes entitlement's measure: bytes of ready assets plus those declared by pending intents whose
 * upload window is still open (created at or after windowStart). Archived and expired assets do not count.
 */
export async function assetBytesInUse(
  db: Kysely<DB>,
  workspaceId: string,
  windowStart: string,
): Promise<number> {
  const row = await db
    .selectFrom('assets')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('size_bytes'), eb.lit(0)).as('bytes'))
    .where('workspace_id', '=', workspaceId)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'ready'),
        eb.and([eb('status', '=', 'pending'), eb('created_at', '>=', windowStart)]),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.bytes);
}

export interface AssetFilters {
  query?: string;
  asset_type?: AssetType;
  mime_type?: string;
  status?: Exclude<AssetStatus, 'archived'>;
  related_resource_type?: string;
  related_resource_id?: string;
}

export async function searchAssets(
  db: Kysely<DB>,
  workspaceId: string,
  filters: AssetFilters,
  page: PageRequest,
) {
  let query = db
    .selectFrom('assets')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('archived_at', 'is', null);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.asset_type) query = query.where('asset_type', '=', filters.asset_type);
  if (filters.mime_type?.endsWith('/*')) {
    const prefix = filters.mime_type
      .slice(0, -1)
      .toLowerCase()
      .replace(/[\\%_]/g, (c) => `\\${c}`);
    query = query.where(sql<boolean>`mime_type like ${`${prefix}%`} escape '\\'`);
  } else if (filters.mime_type) query = query.where('mime_type', '=', filters.mime_type.toLowerCase());
  if (filters.related_resource_type)
    query = query.where('related_resource_type', '=', filters.related_resource_type);
  if (filters.related_resource_id)
    query = query.where('related_resource_id', '=', filters.related_resource_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'assets',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toAsset) };
}

/** Size and SHA-256 of what the store holds for the asset, or null when nothing was uploaded. */
export async function measureStored(storage: AssetStorage, storageKey: string) {
  const stored = await storage.read(storageKey);
  if (!stored) return null;
  const hash = createHash('sha256');
  let sizeBytes = 0;
  for await (const chunk of stored.stream) {
    sizeBytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { sizeBytes, sha256: hash.digest('hex') };
}

/**
 * System maintenance across every workspace: archived assets, and pending ones whose upload window closed
 * before windowStart, whose bytes the cleanup job has not deleted yet.
 */
export async function assetsWithContentToDelete(
  db: Kysely<DB>,
  windowStart: string,
  limit: number,
  system: { system: true },
) {
  void system;
  return db
    .selectFrom('assets')
    .select(['workspace_id', 'id', 'storage_key'])
    .where('content_deleted_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('status', '=', 'archived'),
        eb.and([eb('status', '=', 'pending'), eb('created_at', '<', windowStart)]),
      ]),
    )
    .limit(limit)
    .execute();
}

export async function markContentDeleted(db: Kysely<DB>, workspaceId: string, id: string, now: string) {
  await db
    .updateTable('assets')
    .set({ content_deleted_at: now })
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .execute();
}
