import type { Priority } from '../projects/project-tables.ts';

export type ProductStatus = 'active' | 'sunset' | 'archived';
export type ReleaseStatus = 'planned' | 'in_progress' | 'released' | 'canceled';
export type RoadmapItemStatus = 'idea' | 'planned' | 'in_progress' | 'shipped' | 'canceled';

export interface ProductsTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  description: string | null;
  status: ProductStatus;
  created_at: string;
  updated_at: string;
}

export interface ProductReleasesTable {
  workspace_id: string;
  id: string;
  product_id: string;
  version: string;
  /** Digits-only key whose string order is semantic-version precedence (see version-key.ts). */
  version_sort: string;
  name: string | null;
  status: ReleaseStatus;
  target_date: string | null;
  released_at: string | null;
  notes: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductRoadmapItemsTable {
  workspace_id: string;
  id: string;
  product_id: string;
  title: string;
  description: string | null;
  status: RoadmapItemStatus;
  priority: Priority;
  release_id: string | null;
  project_id: string | null;
  project_task_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProductTables {
  products: ProductsTable;
  product_releases: ProductReleasesTable;
  product_roadmap_items: ProductRoadmapItemsTable;
}
