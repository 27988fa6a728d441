import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum, Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { ProductSchema } from './product-schemas.ts';
import { findProduct, insertProduct, listProducts, toProduct, updateProductRow } from './product-store.ts';
import type { ProductsTable } from './product-tables.ts';

export const productRecord = defineRecordType({
  type: 'product',
  module: 'products',
  table: 'products',
  collection: '/v1/products',
  key: 'product',
  readScope: 'products:read',
  schema: ProductSchema,
  toResource: toProduct,
});

const productStatus = (description?: string) =>
  Enum(['active', 'sunset', 'archived'] as const, description ? { description } : {});
const name = Type.String({ minLength: 1, maxLength: 200 });
const description = Type.String({ maxLength: 20_000 });

export const createProduct = defineOperation({
  name: 'create_product',
  module: 'products',
  scopes: ['products:write'],
  kind: 'create',
  creates: 'product',
  summary: 'Create a product',
  description:
    'Creates a product with a key (a slug such as mobile-app; unique; cannot change). Plan it with create_product_release and create_product_roadmap_item. Emits product.created.',
  input: Strict({
    name,
    key: Type.String({
      pattern: '^[a-z0-9]+(?:[-_][a-z0-9]+)*$',
      minLength: 2,
      maxLength: 40,
    }),
    description: Type.Optional(description),
    status: Type.Optional(productStatus('Default active.')),
  }),
  rest: { method: 'POST', path: '/v1/products' },
  responseKey: 'product',
  handler: async (ctx, input) => {
    const row: ProductsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('prd'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      status: (input.status ?? 'active') as ProductsTable['status'],
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertProduct(ctx.db, row), 'key', 'is already used by another product');
    const product = toProduct(row);
    ctx.audit({ targetType: 'product', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'product.created', targetType: 'product', targetId: row.id, data: product });
    return { body: { product }, createdId: row.id };
  },
});

export const listProductsOperation = defineOperation({
  name: 'list_products',
  module: 'products',
  scopes: ['products:read'],
  kind: 'read',
  summary: 'List products',
  description: 'Lists products, newest first; query matches name, key and description.',
  input: Strict({
    status: Type.Optional(productStatus()),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/products' },
  responseKey: 'products',
  handler: async (ctx, input) => {
    const page = await listProducts(
      ctx.db,
      ctx.workspaceId,
      input as Parameters<typeof listProducts>[2],
      pageRequest('list_products', input),
    );
    return { body: listBody('products', page) };
  },
});

const UPDATABLE = ['name', 'description', 'status'] as const;

export const updateProduct = defineOperation({
  name: 'update_product',
  module: 'products',
  scopes: ['products:write'],
  kind: 'update',
  summary: 'Update a product',
  description:
    "Changes a product's name, description or status; the key cannot change. Emits product.status_changed on a status change, otherwise product.updated.",
  input: Strict({
    product_id: Type.String({ minLength: 1 }),
    name: Type.Optional(name),
    description: Type.Optional(Nullable(description)),
    status: Type.Optional(productStatus()),
  }),
  rest: { method: 'PATCH', path: '/v1/products/{product_id}' },
  responseKey: 'product',
  handler: async (ctx, input) => {
    requireSomeField(input, UPDATABLE);
    const row = await findProduct(ctx.db, ctx.workspaceId, input.product_id);
    if (!row) throw notFound('product');
    const { changes, changed } = diffFields(row, input, UPDATABLE);
    const next = changed.length ? { ...row, ...changes, updated_at: ctx.now } : row;
    if (changed.length) {
      await updateProductRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    const product = toProduct(next);
    ctx.audit({ targetType: 'product', targetId: row.id, changedFields: changed });
    if (changed.length) {
      const event = changed.includes('status') ? 'product.status_changed' : 'product.updated';
      ctx.emit({ name: event, targetType: 'product', targetId: row.id, data: product });
    }
    return { body: { product } };
  },
});
