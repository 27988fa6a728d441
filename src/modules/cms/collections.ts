import { Type } from '@sinclair/typebox';
import { inputFields } from '../../core/changes.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Strict } from '../../core/schema.ts';
import { CmsCollectionSchema } from './cms-schemas.ts';
import { collectionWithKey, insertCollection, listCollections, toCollection } from './cms-store.ts';
import type { CmsCollectionsTable } from './cms-tables.ts';
import { fieldDefinitionInput, normalizeDefinitions } from './entry-fields.ts';

export const collectionRecord = defineRecordType({
  type: 'cms_collection',
  module: 'cms',
  table: 'cms_collections',
  collection: '/v1/cms/collections',
  key: 'collection',
  readScope: 'cms:read',
  schema: CmsCollectionSchema,
  toResource: toCollection,
});

export const createCollection = defineOperation({
  name: 'create_collection',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'create',
  creates: 'cms_collection',
  summary: 'Create a CMS collection',
  description:
    "Creates a collection (a content type such as blog posts) in a site. fields defines its entries' content, which is validated against it. Emits cms_collection.created.",
  input: Strict({
    site_id: Type.String({ minLength: 1 }),
    key: Type.String({
      minLength: 1,
      maxLength: 64,
      pattern: '^[a-z][a-z0-9_-]*$',
      description: 'Unique in the site, e.g. blog_posts.',
    }),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 5000 })),
    fields: Type.Optional(Type.Array(fieldDefinitionInput, { maxItems: 100 })),
  }),
  rest: { method: 'POST', path: '/v1/cms/collections' },
  responseKey: 'collection',
  handler: async (ctx, input) => {
    await ctx.requireRecord('cms_site', input.site_id);
    const definitions = normalizeDefinitions(input.fields ?? []);
    const errors: FieldError[] = [];
    const keys = new Set<string>();
    definitions.forEach((d, i) => {
      if (keys.has(d.key))
        errors.push({ field: `fields[${i}].key`, message: `repeats the field key ${d.key}` });
      keys.add(d.key);
    });
    const taken = await collectionWithKey(ctx.db, ctx.workspaceId, input.site_id, input.key);
    if (taken)
      errors.unshift({ field: 'key', message: `is already used in this site by collection ${taken.id}` });
    if (errors.length) throw validationFailed(errors);
    const row: CmsCollectionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('col'),
      site_id: input.site_id,
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      fields: JSON.stringify(definitions),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertCollection(ctx.db, row), 'key', 'is already used in this site');
    const collection = toCollection(row);
    ctx.audit({ targetType: 'cms_collection', targetId: collection.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'cms_collection.created',
      targetType: 'cms_collection',
      targetId: collection.id,
      data: collection,
    });
    return { body: { collection }, createdId: collection.id };
  },
});

export const listCmsCollections = defineOperation({
  name: 'list_cms_collections',
  module: 'cms',
  scopes: ['cms:read'],
  kind: 'read',
  extension: true,
  summary: 'List CMS collections',
  description:
    'Lists collections with their field definitions (what create_entry expects), newest first; query matches key, name and description.',
  input: Strict({
    site_id: Type.Optional(Type.String({ minLength: 1 })),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/cms/collections' },
  responseKey: 'collections',
  handler: async (ctx, input) => {
    const page = await listCollections(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_cms_collections', input),
    );
    return { body: listBody('collections', page) };
  },
});
