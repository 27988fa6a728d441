import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum, Nullable } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { priority } from '../projects/task-schema.ts';
import { ProductRoadmapItemSchema } from './product-schemas.ts';
import {
  findRoadmapItem,
  insertRoadmapItem,
  listRoadmapItems,
  toRoadmapItem,
  updateRoadmapItemRow,
} from './product-store.ts';
import type { ProductRoadmapItemsTable } from './product-tables.ts';

export const roadmapItemRecord = defineRecordType({
  type: 'product_roadmap_item',
  module: 'products',
  table: 'product_roadmap_items',
  collection: '/v1/products/roadmap-items',
  key: 'product_roadmap_item',
  readScope: 'products:read',
  schema: ProductRoadmapItemSchema,
  toResource: toRoadmapItem,
});

const itemStatus = (description?: string) =>
  Enum(
    ['idea', 'planned', 'in_progress', 'shipped', 'canceled'] as const,
    description ? { description } : {},
  );
const title = Type.String({ minLength: 1, maxLength: 500 });
const description = Type.String({ maxLength: 20_000 });
const links = {
  release_id: Type.String({ minLength: 1, description: 'Of the same product.' }),
  project_id: Type.String({ minLength: 1 }),
  project_task_id: Type.String({
    minLength: 1,
    description: 'Sets project_id to its project.',
  }),
};

interface Links {
  release_id: string | null;
  project_id: string | null;
  project_task_id: string | null;
}

/**
 * Checks the links of an item's end state: each sent ID must exist (404), the release must be of the same
 * product, and with a task linked, project_id is the task's project (another one is validation_failed).
 */
async function checkLinks(
  ctx: OperationContext,
  productId: string,
  next: Links,
  sent: Partial<Links>,
  linkedTaskProject: string | null = null,
): Promise<Links> {
  if (sent.release_id) {
    const release = await ctx.requireRecord('product_release', sent.release_id);
    if (release.product_id !== productId) {
      throw validationFailed([{ field: 'release_id', message: 'is a release of another product' }]);
    }
  }
  if (sent.project_id) await ctx.requireRecord('project', sent.project_id);
  const links = { ...next };
  if (links.project_task_id) {
    const taskProject = sent.project_task_id
      ? ((await ctx.requireRecord('project_task', sent.project_task_id)).project_id as string)
      : linkedTaskProject;
    if (typeof sent.project_id === 'string' && sent.project_id !== taskProject) {
      throw validationFailed([
        { field: 'project_task_id', message: 'is a task of another project than project_id' },
      ]);
    }
    links.project_id = taskProject;
  }
  return links;
}

export const createRoadmapItem = defineOperation({
  name: 'create_product_roadmap_item',
  module: 'products',
  scopes: ['products:write'],
  kind: 'create',
  creates: 'product_roadmap_item',
  summary: 'Create a roadmap item',
  description:
    "Adds an item (a feature, an initiative) to a product's roadmap, optionally in a release and linked to the project and/or project task delivering it. Emits roadmap_item.created.",
  input: Strict({
    product_id: Type.String({ minLength: 1 }),
    title,
    description: Type.Optional(description),
    status: Type.Optional(itemStatus('Default idea.')),
    priority: Type.Optional(priority('Default none.')),
    release_id: Type.Optional(links.release_id),
    project_id: Type.Optional(links.project_id),
    project_task_id: Type.Optional(links.project_task_id),
  }),
  rest: { method: 'POST', path: '/v1/products/roadmap-items' },
  responseKey: 'product_roadmap_item',
  handler: async (ctx, input) => {
    await ctx.requireRecord('product', input.product_id);
    const sent = {
      release_id: input.release_id,
      project_id: input.project_id,
      project_task_id: input.project_task_id,
    };
    const checked = await checkLinks(
      ctx,
      input.product_id,
      {
        release_id: sent.release_id ?? null,
        project_id: sent.project_id ?? null,
        project_task_id: sent.project_task_id ?? null,
      },
      sent,
    );
    const row: ProductRoadmapItemsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('rmi'),
      product_id: input.product_id,
      title: input.title,
      description: input.description ?? null,
      status: (input.status ?? 'idea') as ProductRoadmapItemsTable['status'],
      priority: (input.priority ?? 'none') as ProductRoadmapItemsTable['priority'],
      ...checked,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertRoadmapItem(ctx.db, row);
    const item = toRoadmapItem(row);
    ctx.audit({ targetType: 'product_roadmap_item', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'roadmap_item.created',
      targetType: 'product_roadmap_item',
      targetId: row.id,
      data: item,
    });
    return { body: { product_roadmap_item: item }, createdId: row.id };
  },
});

export const listRoadmapItemsOperation = defineOperation({
  name: 'list_product_roadmap_items',
  module: 'products',
  scopes: ['products:read'],
  kind: 'read',
  summary: 'List roadmap items',
  description: 'Lists roadmap items, newest first; query matches title and description.',
  input: Strict({
    product_id: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(itemStatus()),
    release_id: Type.Optional(Type.String({ minLength: 1 })),
    project_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/products/roadmap-items' },
  responseKey: 'product_roadmap_items',
  heavy: heavyFilters({ indexed: ['product_id', 'status', 'release_id'], scans: ['project_id'] }),
  handler: async (ctx, input) => {
    const page = await listRoadmapItems(
      ctx.db,
      ctx.workspaceId,
      input as Parameters<typeof listRoadmapItems>[2],
      pageRequest('list_product_roadmap_items', input),
    );
    return { body: listBody('product_roadmap_items', page) };
  },
});

const UPDATABLE = [
  'title',
  'description',
  'status',
  'priority',
  'release_id',
  'project_id',
  'project_task_id',
] as const;

export const updateRoadmapItem = defineOperation({
  name: 'update_product_roadmap_item',
  module: 'products',
  scopes: ['products:write'],
  kind: 'update',
  summary: 'Update a roadmap item',
  description:
    "Changes a roadmap item's fields and links (release_id, project_id, project_task_id); it stays in its product. Emits roadmap_item.status_changed on a status change, otherwise roadmap_item.updated.",
  input: Strict({
    roadmap_item_id: Type.String({ minLength: 1 }),
    title: Type.Optional(title),
    description: Type.Optional(Nullable(description)),
    status: Type.Optional(itemStatus()),
    priority: Type.Optional(priority()),
    release_id: Type.Optional(Nullable(links.release_id)),
    project_id: Type.Optional(Nullable(links.project_id)),
    project_task_id: Type.Optional(Nullable(links.project_task_id)),
  }),
  rest: { method: 'PATCH', path: '/v1/products/roadmap-items/{roadmap_item_id}' },
  responseKey: 'product_roadmap_item',
  handler: async (ctx, input) => {
    requireSomeField(input, UPDATABLE);
    const row = await findRoadmapItem(ctx.db, ctx.workspaceId, input.roadmap_item_id);
    if (!row) throw notFound('product roadmap item');
    const merged: Links = {
      release_id: row.release_id,
      project_id: row.project_id,
      project_task_id: row.project_task_id,
    };
    for (const field of ['release_id', 'project_id', 'project_task_id'] as const) {
      if (input[field] !== undefined) merged[field] = input[field];
    }
    const checked = await checkLinks(ctx, row.product_id, merged, input, row.project_id);
    const { changes, changed } = diffFields(row, { ...input, ...checked }, UPDATABLE);
    const next = changed.length ? { ...row, ...changes, updated_at: ctx.now } : row;
    if (changed.length) {
      await updateRoadmapItemRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    }
    const item = toRoadmapItem(next);
    ctx.audit({ targetType: 'product_roadmap_item', targetId: row.id, changedFields: changed });
    if (changed.length) {
      const event = changed.includes('status') ? 'roadmap_item.status_changed' : 'roadmap_item.updated';
      ctx.emit({ name: event, targetType: 'product_roadmap_item', targetId: row.id, data: item });
    }
    return { body: { product_roadmap_item: item } };
  },
});
