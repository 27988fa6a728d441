// update_bi_object and archive_bi_object (issue 12 item 6): one route each over every BI collection. The
// registry serves one operation per path, so the input takes the union of the collections' fields (each
// documented with the collections that have it) and the handler validates the body strictly against the
// chosen collection's own update schema: a field that collection lacks is validation_failed naming it.
import { type TSchema, Type } from '@sinclair/typebox';
import { defineOperation } from '../../../core/define-operation.ts';
import { validationFailed } from '../../../core/errors.ts';
import { Enum, Nullable, Timestamp } from '../../../core/resource-schema.ts';
import { type CompiledSchema, compileSchema, Strict, toFieldErrors } from '../../../core/schema.ts';
import { BI_COLLECTIONS, type BiCollection, type BiCollectionName } from './bi-collections.ts';

const collections = Object.entries(BI_COLLECTIONS) as [BiCollectionName, BiCollection][];
const NAMES = collections.map(([name]) => name);

const CollectionInput = Enum(NAMES, { description: 'The BI collection of the object.' });
const IdInput = Type.String({
  minLength: 1,
  maxLength: 255,
  description: 'The object ID in that collection.',
});

/** Every collection's update fields in one optional property each: the variants' union when they differ. */
function unionOfFields() {
  type Entry = { schemas: Map<string, TSchema>; collections: string[] };
  const byField = new Map<string, Entry>();
  for (const [name, collection] of collections) {
    for (const [field, schema] of Object.entries(collection.update.properties)) {
      const entry: Entry = byField.get(field) ?? { schemas: new Map(), collections: [] };
      entry.schemas.set(JSON.stringify(schema), schema);
      entry.collections.push(name);
      byField.set(field, entry);
    }
  }
  const properties: Record<string, TSchema> = {};
  for (const [field, { schemas, collections: owners }] of byField) {
    const variants = [...schemas.values()].map((s) => ({ ...s }));
    const description = `Collections: ${owners.join(', ')}.`;
    properties[field] = Type.Optional(
      variants.length === 1
        ? { ...variants[0]!, description: `${variants[0]!.description ?? ''} ${description}`.trim() }
        : Type.Union(variants, { description: `${description} Typed per collection.` }),
    );
  }
  return properties;
}

const fieldsByCollection = collections
  .map(([name, c]) => `${name}: ${Object.keys(c.update.properties).join(', ')}`)
  .join('; ');

const validators = new Map<string, CompiledSchema>();

/** The body less collection, id and control fields, checked against the collection's own schema. */
function patchFor(name: BiCollectionName, input: Record<string, unknown>): Record<string, unknown> {
  const { collection: _c, id: _id, idempotency_key: _k, ...patch } = input;
  const collection = BI_COLLECTIONS[name]!;
  const compiled = validators.get(name) ?? compileSchema(collection.update);
  validators.set(name, compiled);
  if (!compiled.strict(patch)) {
    throw validationFailed(
      toFieldErrors(compiled.strict.errors).map((e) =>
        e.message === 'is not a recognized field'
          ? {
              ...e,
              message: `is not a field of ${name}; it can change ${Object.keys(collection.update.properties).join(', ')}`,
            }
          : e,
      ),
    );
  }
  return patch;
}

const ObjectResponse = Type.Object({
  collection: Enum(NAMES),
  id: Type.String({ examples: ['birep_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'] }),
  archived_at: Nullable(Timestamp(), { description: 'When it was archived; null while live.' }),
  object: Type.Union(
    collections.map(([, c]) => c.schema),
    { description: 'The object as its collection returns it.' },
  ),
});

export const updateBiObject = defineOperation({
  name: 'update_bi_object',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'update',
  summary: 'Update a BI object',
  description:
    "Changes a BI object of one collection; the body may hold only that collection's fields (another " +
    `field is validation_failed naming it). Fields per collection: ${fieldsByCollection}. Approve a ` +
    "metric with {status: 'approved'} on metrics (then every credential may use it). Archived or unknown " +
    'objects are resource_not_found; sending the current values changes nothing.',
  input: Strict({ collection: CollectionInput, id: IdInput, ...unionOfFields() }),
  rest: { method: 'PATCH', path: '/v1/bi/{collection}/{id}' },
  responseKey: 'object',
  response: ObjectResponse,
  handler: async (ctx, input) => {
    const name = input.collection as BiCollectionName;
    const patch = patchFor(name, input);
    const object = await BI_COLLECTIONS[name]!.apply(ctx, input.id, patch);
    return { body: { collection: name, id: input.id, archived_at: null, object } };
  },
});

export const archiveBiObject = defineOperation({
  name: 'archive_bi_object',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'archive',
  summary: 'Archive a BI object',
  description:
    `Archives a BI object (collections: ${NAMES.join(', ')}): hidden from lists and lookups and no longer ` +
    'usable by new queries, schedules or tiles; history kept. Objects that reference it keep working: ' +
    'dashboard tiles show it archived, an archived schedule stops running. Archiving again changes nothing.',
  input: Strict({ collection: CollectionInput, id: IdInput }),
  rest: { method: 'DELETE', path: '/v1/bi/{collection}/{id}' },
  responseKey: 'object',
  response: ObjectResponse,
  handler: async (ctx, input) => {
    const name = input.collection as BiCollectionName;
    const { object, archived_at } = await BI_COLLECTIONS[name]!.archive(ctx, input.id);
    return { body: { collection: name, id: input.id, archived_at, object } };
  },
});
