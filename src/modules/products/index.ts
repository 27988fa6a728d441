import type { ModuleDefinition } from '../../core/module.ts';
import { ProductReleaseSchema, ProductRoadmapItemSchema, ProductSchema } from './product-schemas.ts';
import { productCounts } from './product-summary-store.ts';
import type { ProductTables } from './product-tables.ts';
import { createProduct, listProductsOperation, productRecord, updateProduct } from './products.ts';
import { createRelease, listReleasesOperation, releaseRecord, updateRelease } from './releases.ts';
import {
  createRoadmapItem,
  listRoadmapItemsOperation,
  roadmapItemRecord,
  updateRoadmapItem,
} from './roadmap-items.ts';

const identity = { name: 'products', scopes: ['products:read', 'products:write'] } as const;

export const productsModule: ModuleDefinition<typeof identity, ProductTables> = {
  ...identity,
  operations: [
    listProductsOperation,
    createProduct,
    updateProduct,
    listRoadmapItemsOperation,
    createRoadmapItem,
    updateRoadmapItem,
    listReleasesOperation,
    createRelease,
    updateRelease,
  ],
  recordTypes: [productRecord, releaseRecord, roadmapItemRecord],
  events: [
    {
      name: 'product.created',
      description: 'A product was created; data is the product.',
      schema: ProductSchema,
    },
    {
      name: 'product.updated',
      description: 'A product changed without a status change; data is the product.',
      schema: ProductSchema,
    },
    {
      name: 'product.status_changed',
      description: 'A product changed status (and maybe more); data is the product.',
      schema: ProductSchema,
    },
    {
      name: 'release.created',
      description: 'A product release was created; data is the release.',
      schema: ProductReleaseSchema,
    },
    {
      name: 'release.updated',
      description: 'A release changed (other than becoming released); data is the release.',
      schema: ProductReleaseSchema,
    },
    {
      name: 'release.released',
      description: 'A release became released (released_at is set); data is the release.',
      schema: ProductReleaseSchema,
    },
    {
      name: 'roadmap_item.created',
      description: 'A roadmap item was created; data is the item.',
      schema: ProductRoadmapItemSchema,
    },
    {
      name: 'roadmap_item.updated',
      description: 'A roadmap item changed without a status change; data is the item.',
      schema: ProductRoadmapItemSchema,
    },
    {
      name: 'roadmap_item.status_changed',
      description: 'A roadmap item changed status; data is the item.',
      schema: ProductRoadmapItemSchema,
    },
  ],
  summary: [
    {
      module: 'products',
      scope: 'products:read',
      key: 'products',
      compute: (db, id) => productCounts(db, id),
    },
  ],
};
