import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { Shape } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { builtinEmbedding } from './builtin-embedder.ts';
import { requireActive, requireCollection } from './collections.ts';
import { EMBED_JOB, embeddingUnits } from './embed-job.ts';
import { metadataMatcher } from './vector-filter.ts';
import { encodeVector } from './vector-math.ts';
import {
  collectionKeyInput,
  DocumentStateSchema,
  FilterInput,
  MAX_DIMENSION,
  MAX_DOCUMENTS_PER_CALL,
  type Metadata,
  MetadataInput,
  VectorCollectionSchema,
} from './vector-schemas.ts';
import {
  deleteDocumentRows,
  existingDocuments,
  nextVersion,
  scanDocuments,
  statusDelta,
  toCollection,
  upsertDocumentRows,
} from './vector-store.ts';
import type { VectorCollectionsTable, VectorDocumentStatus, VectorDocumentsTable } from './vector-tables.ts';

const documentIdInput = Type.String({ minLength: 1, maxLength: 256, examples: ['article-42#2'] });

const DocumentInput = Strict({
  id: documentIdInput,
  text: Type.Optional(
    Type.String({ maxLength: 32_000, examples: ['To reset a password, open Settings > Security.'] }),
  ),
  vector: Type.Optional(
    Type.Array(Type.Number(), {
      minItems: 1,
      maxItems: MAX_DIMENSION,
      description: "Exactly the collection's dimension of finite numbers.",
      examples: [[0.12, -0.4, 0.33]],
    }),
  ),
  metadata: Type.Optional(MetadataInput),
});

/** Checks each document against the collection; every problem is reported at once, by index. */
function checkDocuments(
  collection: VectorCollectionsTable,
  documents: { id: string; text?: string; vector?: number[] }[],
): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Map<string, number>();
  documents.forEach((doc, i) => {
    const at = `documents[${i}]`;
    const first = seen.get(doc.id);
    if (first !== undefined)
      errors.push({ field: `${at}.id`, message: `repeats the id of documents[${first}]` });
    seen.set(doc.id, i);
    if (doc.vector) {
      if (doc.vector.length !== collection.dimension) {
        errors.push({
          field: `${at}.vector`,
          message: `has ${doc.vector.length} values; the collection's dimension is ${collection.dimension}`,
        });
      } else if (!doc.vector.every(Number.isFinite)) {
        errors.push({ field: `${at}.vector`, message: 'must hold finite numbers only (no NaN or infinity)' });
      }
    } else if (collection.embedder === 'none') {
      errors.push({
        field: `${at}.vector`,
        message: 'is required: this collection has no embedder (embedder none), so send the vector',
      });
    } else if (!doc.text?.trim()) {
      errors.push({ field: `${at}.text`, message: 'send text to embed, or a vector' });
    }
  });
  return errors;
}

export const upsertVectorDocuments = defineOperation({
  name: 'upsert_vector_documents',
  module: 'data_agents',
  scopes: ['vector_store:write'],
  kind: 'action',
  // Documents are replaced whole by your own IDs: sending the same ones again changes nothing.
  idempotent: true,
  summary: 'Add or replace documents in a vector collection',
  description:
    "Adds up to 500 documents to a vector collection, each with your own id, text and/or a vector of exactly the collection's dimension, and flat metadata (strings, numbers, booleans, string arrays) for filtering. An existing id is replaced whole. With embedder builtin, text without a vector is embedded at once; with external, such documents answer status pending and are embedded in the background (searchable once ready; failed ones carry embedding_error). Usage: 1 unit plus 1 per 100 texts embedded. Emits vector_documents.upserted.",
  input: Strict({
    collection_key: collectionKeyInput,
    documents: Type.Array(DocumentInput, { minItems: 1, maxItems: MAX_DOCUMENTS_PER_CALL }),
  }),
  rest: { method: 'POST', path: '/v1/vector-collections/{collection_key}/documents' },
  responseKey: 'documents',
  response: Shape({
    vector_collection: VectorCollectionSchema,
    created: Type.Integer({ minimum: 0, examples: [2], description: 'Documents that did not exist.' }),
    replaced: Type.Integer({ minimum: 0, examples: [1], description: 'Existing documents replaced.' }),
    documents: Type.Array(DocumentStateSchema),
  }),
  handler: async (ctx, input) => {
    const collection = await requireCollection(ctx, input.collection_key);
    requireActive(collection);
    const errors = checkDocuments(collection, input.documents);
    if (errors.length) throw validationFailed(errors);
    const ids = input.documents.map((d) => d.id);
    const existing = await existingDocuments(ctx.db, ctx.workspaceId, collection.id, ids);
    const created = ids.length - existing.size;
    const needsEmbedding = (doc: { vector?: number[] }) => !doc.vector && collection.embedder === 'external';
    // Replaced documents leave their counters; the new pending ones join pending_count.
    const replacedDelta = statusDelta(existing.values(), -1);
    const counters = await nextVersion(
      ctx.db,
      ctx.workspaceId,
      collection.id,
      {
        documents: created,
        pending: replacedDelta.pending + input.documents.filter(needsEmbedding).length,
        failed: replacedDelta.failed,
      },
      ctx.now,
    );
    const { version } = counters;
    let embedded = 0;
    const pending: string[] = [];
    const rows: VectorDocumentsTable[] = input.documents.map((doc) => {
      let vector: Buffer | null = doc.vector ? encodeVector(doc.vector) : null;
      if (!vector && collection.embedder === 'builtin') {
        vector = encodeVector(builtinEmbedding(doc.text!, collection.dimension));
        embedded++;
      }
      if (!vector) pending.push(doc.id);
      return {
        workspace_id: ctx.workspaceId,
        collection_id: collection.id,
        id: doc.id,
        text: doc.text ?? null,
        vector,
        metadata: JSON.stringify(doc.metadata ?? {}),
        status: vector ? 'ready' : 'pending',
        embedding_error: null,
        version,
        created_at: ctx.now,
        updated_at: ctx.now,
      };
    });
    await upsertDocumentRows(ctx.db, rows);
    if (pending.length) {
      // The endpoint is called by a job, after this transaction commits (never while it holds locks).
      await ctx.enqueue(EMBED_JOB, {
        workspace_id: ctx.workspaceId,
        collection_id: collection.id,
        ids: pending,
      });
    }
    const vectorCollection = toCollection({ ...collection, ...counters, updated_at: ctx.now });
    ctx.audit({
      targetType: 'vector_collection',
      targetId: collection.id,
      action: 'upsert_documents',
      changedFields: ['documents'],
    });
    ctx.emit({
      name: 'vector_documents.upserted',
      targetType: 'vector_collection',
      targetId: collection.id,
      data: { collection_id: collection.id, collection_key: collection.key, document_ids: ids, version },
    });
    return {
      body: {
        vector_collection: vectorCollection,
        created,
        replaced: existing.size,
        documents: rows.map((r) => ({ id: r.id, status: r.status, embedding_error: null })),
      },
      units: 1 + embeddingUnits(embedded + pending.length),
    };
  },
});

export const deleteVectorDocuments = defineOperation({
  name: 'delete_vector_documents',
  module: 'data_agents',
  scopes: ['vector_store:write'],
  kind: 'action',
  summary: 'Delete documents from a vector collection',
  description:
    'Deletes documents of a vector collection either by ids (up to 500) or by a metadata filter (every matching document; the same filter syntax as search_vector_collection). Send exactly one of the two. Unknown ids are ignored; the answer lists the ids deleted. Emits vector_documents.deleted.',
  input: Strict({
    collection_key: collectionKeyInput,
    ids: Type.Optional(Type.Array(documentIdInput, { minItems: 1, maxItems: MAX_DOCUMENTS_PER_CALL })),
    filter: Type.Optional(FilterInput),
  }),
  rest: { method: 'DELETE', path: '/v1/vector-collections/{collection_key}/documents', body: true },
  responseKey: 'deleted_ids',
  response: Shape({
    vector_collection: VectorCollectionSchema,
    deleted: Type.Integer({ minimum: 0, examples: [2] }),
    deleted_ids: Type.Array(Type.String(), { examples: [['article-42#1', 'article-42#2']] }),
  }),
  handler: async (ctx, input) => {
    if ((input.ids === undefined) === (input.filter === undefined)) {
      throw validationFailed([{ field: 'ids', message: 'send exactly one of ids or filter' }]);
    }
    const filter = input.filter;
    const matcher = metadataMatcher(filter);
    if (filter && !matcher) {
      throw validationFailed([{ field: 'filter', message: 'must hold at least one condition' }]);
    }
    const collection = await requireCollection(ctx, input.collection_key);
    requireActive(collection);
    let found: Map<string, VectorDocumentStatus>;
    if (input.ids) {
      found = await existingDocuments(ctx.db, ctx.workspaceId, collection.id, [...new Set(input.ids)]);
    } else {
      // Metadata lives in a JSON column: the collection is read in chunks, without its vectors.
      found = new Map();
      let afterId: string | undefined;
      for (;;) {
        const docs = await scanDocuments(ctx.db, ctx.workspaceId, collection.id, {
          afterId,
          limit: 2000,
          withVectors: false,
        });
        for (const doc of docs) {
          if (matcher!(JSON.parse(doc.metadata) as Metadata)) found.set(doc.id, doc.status);
        }
        if (docs.length < 2000) break;
        afterId = docs[docs.length - 1]!.id;
      }
    }
    const ids = [...found.keys()];
    let vectorCollection = toCollection(collection);
    if (ids.length) {
      const counters = await nextVersion(
        ctx.db,
        ctx.workspaceId,
        collection.id,
        { documents: -ids.length, ...statusDelta(found.values(), -1) },
        ctx.now,
      );
      const { version } = counters;
      await deleteDocumentRows(ctx.db, ctx.workspaceId, collection.id, ids, version);
      vectorCollection = toCollection({ ...collection, ...counters, updated_at: ctx.now });
      ctx.emit({
        name: 'vector_documents.deleted',
        targetType: 'vector_collection',
        targetId: collection.id,
        data: { collection_id: collection.id, collection_key: collection.key, document_ids: ids, version },
      });
    }
    ctx.audit({
      targetType: 'vector_collection',
      targetId: collection.id,
      action: 'delete_documents',
      changedFields: ids.length ? ['documents'] : [],
    });
    return { body: { vector_collection: vectorCollection, deleted: ids.length, deleted_ids: ids } };
  },
});
