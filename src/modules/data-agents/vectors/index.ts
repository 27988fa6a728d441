import { Type } from '@sinclair/typebox';
import type { ModuleParts } from '../../../core/module.ts';
import * as vectorsMigration from '../migrations/0017-data-agents-vectors.ts';
import { searchVectorCollection } from './collection-search.ts';
import {
  archiveVectorCollection,
  createVectorCollection,
  listVectorCollections,
  vectorCollectionRecord,
} from './collections.ts';
import { deleteVectorDocuments, upsertVectorDocuments } from './documents.ts';
import { vectorEmbedJob } from './embed-job.ts';
import { startBuild, warmIndex } from './vector-index.ts';
import { VectorCollectionSchema } from './vector-schemas.ts';
import { largeCollections } from './vector-store.ts';
import type { VectorTables } from './vector-tables.ts';

const documentsChanged = Type.Object({
  collection_id: Type.String(),
  collection_key: Type.String(),
  document_ids: Type.Array(Type.String()),
  version: Type.Integer(),
});

// Vector collections (issue 14): collections, documents, embedders, exact and approximate search.
// docs/modules/vectors.md.
export const vectorParts: ModuleParts<VectorTables> = {
  migrations: { '0017-data-agents-vectors': vectorsMigration },
  operations: [
    listVectorCollections,
    createVectorCollection,
    upsertVectorDocuments,
    searchVectorCollection,
    deleteVectorDocuments,
    archiveVectorCollection,
  ],
  recordTypes: [vectorCollectionRecord],
  events: [
    {
      name: 'vector_collection.created',
      description: 'A vector collection was created.',
      schema: VectorCollectionSchema,
    },
    {
      name: 'vector_collection.archived',
      description: 'A vector collection was archived (documents kept, searches refused).',
      schema: VectorCollectionSchema,
    },
    {
      name: 'vector_documents.upserted',
      description:
        'Documents were added to or replaced in a vector collection (IDs only, not their content).',
      schema: documentsChanged,
    },
    {
      name: 'vector_documents.deleted',
      description: 'Documents were deleted from a vector collection.',
      schema: documentsChanged,
    },
  ],
  eventConsumers: [
    {
      // A warm-up, not the guarantee: the relay hands an event to one node, so only that node's index is
      // caught up here; every search checks the collection version itself (vector-index.ts).
      name: 'vectors.index-warmup',
      subscribes: ['vector_documents.upserted', 'vector_documents.deleted'],
      consume: async (db, workspaceId, events) => {
        const collections = new Set(events.flatMap((e) => (e.target_id ? [e.target_id] : [])));
        for (const collectionId of collections) await warmIndex(db, workspaceId, collectionId);
      },
    },
  ],
  jobs: [vectorEmbedJob],
  // Each node builds the indexes of its largest active collections in the background when it starts, so the
  // first searches after a deploy are approximate rather than exact scans. Nothing waits for it.
  startup: async (env) => {
    const collections = await largeCollections(env.db, env.config.vectorExactThreshold, 20);
    void (async () => {
      for (const c of collections) {
        await startBuild(env.db, {
          workspaceId: c.workspace_id,
          collectionId: c.id,
          dimension: Number(c.dimension),
          metric: c.metric,
        });
      }
    })();
  },
};
