import type { Kysely } from 'kysely';
import type { KeysetColumn, PageRequest } from '../../core/pagination.ts';
import { fetchSearchPage } from '../../core/search.ts';
import { findRow, insertRows, updateRow } from '../../db/find-row.ts';
import type { DB } from '../../db/tables.ts';
import type { Product, ProductRelease, ProductRoadmapItem } from './product-schemas.ts';
import type {
  ProductReleasesTable,
  ProductRoadmapItemsTable,
  ProductStatus,
  ProductsTable,
  ReleaseStatus,
  RoadmapItemStatus,
} from './product-tables.ts';

export function toProduct(row: ProductsTable): Product {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    description: row.description,
    status: row.status,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toRelease(row: ProductReleasesTable): ProductRelease {
  return {
    id: row.id,
    product_id: row.product_id,
    version: row.version,
    name: row.name,
    status: row.status,
    target_date: row.target_date,
    released_at: row.released_at,
    notes: row.notes,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function toRoadmapItem(row: ProductRoadmapItemsTable): ProductRoadmapItem {
  return {
    id: row.id,
    product_id: row.product_id,
    title: row.title,
    description: row.description,
    status: row.status,
    priority: row.priority,
    release_id: row.release_id,
    project_id: row.project_id,
    project_task_id: row.project_task_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const insertProduct = (db: Kysely<DB>, row: ProductsTable) => insertRows(db, 'products', row);
export const insertRelease = (db: Kysely<DB>, row: ProductReleasesTable) =>
  insertRows(db, 'product_releases', row);
export const insertRoadmapItem = (db: Kysely<DB>, row: ProductRoadmapItemsTable) =>
  insertRows(db, 'product_roadmap_items', row);

export function updateProductRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProductsTable>,
) {
  return updateRow(db, 'products', workspaceId, id, changes);
}

export function updateReleaseRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProductReleasesTable>,
) {
  return updateRow(db, 'product_releases', workspaceId, id, changes);
}

export function updateRoadmapItemRow(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<ProductRoadmapItemsTable>,
) {
  return updateRow(db, 'product_roadmap_items', workspaceId, id, changes);
}

export function findProduct(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'products', workspaceId, id);
}

export function findRelease(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'product_releases', workspaceId, id);
}

export function findRoadmapItem(db: Kysely<DB>, workspaceId: string, id: string) {
  return findRow(db, 'product_roadmap_items', workspaceId, id);
}

export async function listProducts(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { status?: ProductStatus; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('products').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchSearchPage(db, query, page, {
    table: 'products',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toProduct) };
}

/** Highest semantic version first (ties, such as versions differing only in build metadata, newest first). */
export async function listReleases(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { product_id?: string; status?: ReleaseStatus; query?: string },
  page: PageRequest,
) {
  let query = db.selectFrom('product_releases').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.product_id) query = query.where('product_id', '=', filters.product_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  const order: KeysetColumn[] = [
    { column: 'version_sort', direction: 'desc', type: 'string' },
    { column: 'id', direction: 'desc', type: 'string' },
  ];
  const result = await fetchSearchPage(
    db,
    query,
    page,
    { table: 'product_releases', workspaceId, text: filters.query },
    order,
  );
  return { ...result, items: result.items.map(toRelease) };
}

export async function listRoadmapItems(
  db: Kysely<DB>,
  workspaceId: string,
  filters: {
    product_id?: string;
    status?: RoadmapItemStatus;
    release_id?: string;
    project_id?: string;
    query?: string;
  },
  page: PageRequest,
) {
  let query = db.selectFrom('product_roadmap_items').selectAll().where('workspace_id', '=', workspaceId);
  if (filters.product_id) query = query.where('product_id', '=', filters.product_id);
  if (filters.status) query = query.where('status', '=', filters.status);
  if (filters.release_id) query = query.where('release_id', '=', filters.release_id);
  if (filters.project_id) query = query.where('project_id', '=', filters.project_id);
  const result = await fetchSearchPage(db, query, page, {
    table: 'product_roadmap_items',
    workspaceId,
    text: filters.query,
  });
  return { ...result, items: result.items.map(toRoadmapItem) };
}
