import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, mergedJson, requireSomeField, withoutNulls } from '../../core/changes.ts';
import type { OperationContext } from '../../core/context.ts';
import { uniquely } from '../../core/db-errors.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { notFound, validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { MapOf, Strict } from '../../core/schema.ts';
import { CmsEntrySchema, entryStatus } from './cms-schemas.ts';
import {
  entryWithSlug,
  findCollection,
  findEntry,
  freeSlug,
  insertEntry,
  searchEntries,
  toEntry,
  updateEntryRow,
} from './cms-store.ts';
import type { CmsCollectionsTable, CmsEntriesTable, EntryStatus } from './cms-tables.ts';
import { type FieldDefinition, fieldErrors, referenceErrors, searchText, slugify } from './entry-fields.ts';

export const entryRecord = defineRecordType({
  type: 'cms_entry',
  module: 'cms',
  table: 'cms_entries',
  collection: '/v1/cms/entries',
  key: 'entry',
  readScope: 'cms:read',
  schema: CmsEntrySchema,
  toResource: toEntry,
});

const slug = Type.String({
  minLength: 1,
  maxLength: 100,
  pattern: '^[a-z0-9]+(-[a-z0-9]+)*$',
  description: 'Unique in the collection.',
});
const contentFields = (description: string) => MapOf(Type.Unknown(), { description });
const entryId = Type.String({ minLength: 1 });

/** Validates fields against the collection's definitions, references included; throws validation_failed. */
async function checkFields(
  ctx: OperationContext,
  collection: CmsCollectionsTable,
  fields: Record<string, unknown>,
) {
  const definitions = JSON.parse(collection.fields) as FieldDefinition[];
  const errors = fieldErrors(definitions, fields);
  if (errors.length)
    throw validationFailed(errors, "The entry's fields do not match its collection's field definitions.");
  const missing = await referenceErrors(ctx.db, ctx.workspaceId, definitions, fields);
  if (missing.length) throw validationFailed(missing);
  return searchText(definitions, fields);
}

/** A concurrent write that took the slug first: the same answer as a sequential duplicate. */
const SLUG_TAKEN = 'is already used in this collection';

async function checkSlugFree(ctx: OperationContext, collectionId: string, value: string, self?: string) {
  const holder = await entryWithSlug(ctx.db, ctx.workspaceId, collectionId, value);
  if (holder && holder.id !== self) {
    throw validationFailed([
      { field: 'slug', message: `is already used in this collection by entry ${holder.id}` },
    ]);
  }
}

export const createEntry = defineOperation({
  name: 'create_entry',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'create',
  creates: 'cms_entry',
  summary: 'Create a CMS entry',
  description:
    'Creates an entry in a collection. fields must match its definitions (list_cms_collections), else validation_failed names the field (e.g. fields.price); referenced entries and assets must exist. slug defaults to the title slugified (made unique with -2, -3 ...). status defaults to draft; published sets published_at. Emits entry.created.',
  input: Strict({
    collection_id: Type.String({ minLength: 1 }),
    title: Type.String({ minLength: 1, maxLength: 500 }),
    slug: Type.Optional(slug),
    fields: Type.Optional(contentFields('By field key; null means no value.')),
    status: Type.Optional(entryStatus),
  }),
  rest: { method: 'POST', path: '/v1/cms/entries' },
  responseKey: 'entry',
  handler: async (ctx, input) => {
    const collection = await findCollection(ctx.db, ctx.workspaceId, input.collection_id);
    if (!collection) throw notFound('CMS collection');
    const fields = withoutNulls(input.fields);
    const text = await checkFields(ctx, collection, fields);
    if (input.slug) await checkSlugFree(ctx, collection.id, input.slug);
    const status = input.status ?? 'draft';
    const row: CmsEntriesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('ent'),
      site_id: collection.site_id,
      collection_id: collection.id,
      title: input.title,
      slug: input.slug ?? (await freeSlug(ctx.db, ctx.workspaceId, collection.id, slugify(input.title))),
      fields: JSON.stringify(fields),
      search_text: text,
      status,
      published_at: status === 'published' ? ctx.now : null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertEntry(ctx.db, row), 'slug', SLUG_TAKEN);
    const entry = toEntry(row);
    ctx.audit({ targetType: 'cms_entry', targetId: entry.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'entry.created', targetType: 'cms_entry', targetId: entry.id, data: entry });
    return { body: { entry }, createdId: entry.id };
  },
});

export const searchEntriesOperation = defineOperation({
  name: 'search_entries',
  module: 'cms',
  scopes: ['cms:read'],
  kind: 'read',
  summary: 'Search CMS entries',
  description: 'Lists CMS entries, newest first; query matches the title and the text and rich_text fields.',
  input: Strict({
    site_id: Type.Optional(Type.String({ minLength: 1 })),
    collection_id: Type.Optional(Type.String({ minLength: 1 })),
    status: Type.Optional(entryStatus),
    query: Type.Optional(Type.String({ maxLength: 500 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/cms/entries' },
  heavy: heavyFilters({ indexed: ['site_id', 'collection_id', 'status'] }),
  responseKey: 'entries',
  handler: async (ctx, input) => {
    const page = await searchEntries(ctx.db, ctx.workspaceId, input, pageRequest('search_entries', input));
    return { body: listBody('entries', page) };
  },
});

interface EntryChange {
  entry_id: string;
  title?: string;
  slug?: string;
  fields?: Record<string, unknown>;
  status?: EntryStatus;
}

/** The one way to change an entry, shared by update_entry and the deprecated update_entry_status. */
async function changeEntry(ctx: OperationContext, input: EntryChange) {
  const row = await findEntry(ctx.db, ctx.workspaceId, input.entry_id);
  if (!row) throw notFound('CMS entry');
  const proposed = {
    ...input,
    fields: mergedJson(row.fields, input.fields),
    published_at: input.status === 'published' && row.status !== 'published' ? ctx.now : undefined,
  };
  const { changes, changed } = diffFields(row, proposed, [
    'title',
    'slug',
    'fields',
    'status',
    'published_at',
  ]);
  if (changes.slug !== undefined) await checkSlugFree(ctx, row.collection_id, changes.slug, row.id);
  if (changes.fields !== undefined) {
    const collection = (await findCollection(ctx.db, ctx.workspaceId, row.collection_id))!;
    changes.search_text = await checkFields(ctx, collection, JSON.parse(changes.fields));
  }
  const next: CmsEntriesTable = { ...row, ...changes, updated_at: changed.length ? ctx.now : row.updated_at };
  if (changed.length) {
    await uniquely(
      () => updateEntryRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now }),
      'slug',
      SLUG_TAKEN,
    );
  }
  const entry = toEntry(next);
  ctx.audit({ targetType: 'cms_entry', targetId: row.id, changedFields: changed });
  if (next.status !== row.status) {
    ctx.emit({
      name: 'entry.status_changed',
      targetType: 'cms_entry',
      targetId: row.id,
      data: { entry, previous_status: row.status },
    });
  }
  if (changed.some((field) => field !== 'status' && field !== 'published_at')) {
    ctx.emit({ name: 'entry.updated', targetType: 'cms_entry', targetId: row.id, data: entry });
  }
  return entry;
}

export const updateEntry = defineOperation({
  name: 'update_entry',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'update',
  summary: 'Update a CMS entry',
  description:
    "Changes an entry's title (the slug stays), slug, fields or status (published sets published_at); the merged fields are validated against the collection's definitions. Emits entry.status_changed on a status change, entry.updated when content changed.",
  input: Strict({
    entry_id: entryId,
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    slug: Type.Optional(slug),
    fields: Type.Optional(contentFields('Merged into the stored ones; null removes one.')),
    status: Type.Optional(entryStatus),
  }),
  rest: { method: 'PATCH', path: '/v1/cms/entries/{entry_id}' },
  responseKey: 'entry',
  handler: async (ctx, input) => {
    requireSomeField(input, ['title', 'slug', 'fields', 'status']);
    return { body: { entry: await changeEntry(ctx, input) } };
  },
});

export const updateEntryStatus = defineOperation({
  name: 'update_entry_status',
  module: 'cms',
  scopes: ['cms:write'],
  kind: 'update',
  deprecated: { replacedBy: 'update_entry' },
  summary: "Change a CMS entry's status (deprecated)",
  description:
    'Same as update_entry with status: moves an entry to another status (published sets published_at). Emits entry.status_changed when the status changes.',
  input: Strict({ entry_id: entryId, status: entryStatus }),
  rest: { method: 'PATCH', path: '/v1/cms/entries/{entry_id}' },
  responseKey: 'entry',
  handler: async (ctx, input) => ({
    body: { entry: await changeEntry(ctx, { entry_id: input.entry_id, status: input.status }) },
  }),
});
