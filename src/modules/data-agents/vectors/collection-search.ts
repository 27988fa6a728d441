import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { Enum, Shape, Text } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { builtinEmbedding } from './builtin-embedder.ts';
import { requireActive, requireCollection } from './collections.ts';
import { embeddingUnits } from './embed-job.ts';
import { embedQueryExternal } from './external-embedder.ts';
import {
  collectionKeyInput,
  FilterInput,
  MAX_DIMENSION,
  METRICS,
  SearchHitSchema,
} from './vector-schemas.ts';
import { searchCollection } from './vector-search.ts';

export const searchVectorCollection = defineOperation({
  name: 'search_vector_collection',
  module: 'data_agents',
  scopes: ['vector_store:read'],
  kind: 'read',
  summary: 'Search a vector collection',
  description:
    "Finds the top_k (1-100, default 10) documents of a vector collection nearest to a query vector (exactly the collection's dimension) or a query text (embedded with the collection's embedder: builtin is lexical, so it finds shared words, not synonyms). Optional metadata filter (equality, in, number ranges), min_score and include_vectors. Answers documents best first with their score (higher is better; the metric is stated) and mode: exact, or approximate (an HNSW index, used for large collections). An archived collection answers 409 conflict. Reads only.",
  input: Strict({
    collection_key: collectionKeyInput,
    vector: Type.Optional(
      Type.Array(Type.Number(), { minItems: 1, maxItems: MAX_DIMENSION, examples: [[0.12, -0.4, 0.33]] }),
    ),
    query: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 8000,
        description: "Query text, embedded with the collection's embedder.",
      }),
    ),
    top_k: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Default 10.' })),
    filter: Type.Optional(FilterInput),
    min_score: Type.Optional(
      Type.Number({ description: 'Leave out hits scoring below this (for euclidean: minus the distance).' }),
    ),
    include_vectors: Type.Optional(
      Type.Boolean({ description: "Return each hit's vector (default false)." }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/vector-collections/{collection_key}/search' },
  // A search reads a whole collection when it is small or not indexed on this node yet.
  heavy: true,
  responseKey: 'results',
  response: Shape({
    collection_key: Text('support-articles'),
    metric: Enum(METRICS),
    mode: Enum(['exact', 'approximate'] as const, {
      description: 'exact: every document scored; approximate: the HNSW index (recall about 0.95 or better).',
    }),
    results: Type.Array(SearchHitSchema),
  }),
  handler: async (ctx, input) => {
    const collection = await requireCollection(ctx, input.collection_key);
    requireActive(collection);
    const errors: FieldError[] = [];
    if ((input.vector === undefined) === (input.query === undefined)) {
      errors.push({ field: 'vector', message: 'send exactly one of vector or query' });
    } else if (input.vector && input.vector.length !== collection.dimension) {
      errors.push({
        field: 'vector',
        message: `has ${input.vector.length} values; the collection's dimension is ${collection.dimension}`,
      });
    } else if (input.vector && !input.vector.every(Number.isFinite)) {
      errors.push({ field: 'vector', message: 'must hold finite numbers only (no NaN or infinity)' });
    } else if (input.query !== undefined && collection.embedder === 'none') {
      errors.push({
        field: 'query',
        message: 'this collection has no embedder (embedder none): send a vector',
      });
    }
    if (errors.length) throw validationFailed(errors);
    let query = input.vector;
    if (!query && collection.embedder === 'builtin') {
      query = Array.from(builtinEmbedding(input.query!, collection.dimension));
    } else if (!query) {
      query = await embedQueryExternal(ctx.config, input.query!, collection.dimension);
    }
    const { hits, mode } = await searchCollection(
      ctx.db,
      collection,
      {
        query,
        topK: input.top_k ?? 10,
        filter: input.filter,
        minScore: input.min_score,
        includeVectors: input.include_vectors ?? false,
      },
      { exactThreshold: ctx.config.vectorExactThreshold, maxVectors: ctx.config.vectorIndexMaxVectors },
    );
    return {
      body: { collection_key: collection.key, metric: collection.metric, mode, results: hits },
      units: 1 + (input.query !== undefined ? embeddingUnits(1) : 0),
    };
  },
});
