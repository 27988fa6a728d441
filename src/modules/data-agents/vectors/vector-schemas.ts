// Vector collection resources and the shared input shapes (metadata, filters), declared once: record type,
// responses, MCP outputSchema and OpenAPI derive from these.
import { type Static, Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../../core/resource-schema.ts';
import { MapOf } from '../../../core/schema.ts';

export const METRICS = ['cosine', 'dot', 'euclidean'] as const;
export const EMBEDDERS = ['none', 'builtin', 'external'] as const;
export const MAX_DIMENSION = 4096;
export const MAX_DOCUMENTS_PER_CALL = 500;

export const VectorCollectionSchema = Resource('VectorCollection', {
  id: RecordId('vcol'),
  key: Text('support-articles', 'Unique in the workspace; the path segment of the routes.'),
  name: Text('Support articles'),
  description: NullableText('Help-centre articles, one document per section.'),
  dimension: Type.Integer({ minimum: 1, maximum: MAX_DIMENSION, examples: [384] }),
  metric: Enum(METRICS, { description: 'How search scores: cosine similarity, dot product, or euclidean.' }),
  embedder: Enum(EMBEDDERS, {
    description:
      'none: callers send vectors; builtin: lexical hashed n-grams computed by the service; external: the ' +
      "operator's OpenAI-compatible embeddings endpoint (asynchronous).",
  }),
  status: Enum(['active', 'archived'] as const),
  document_count: Type.Integer({ minimum: 0, examples: [1200] }),
  pending_count: Type.Integer({
    minimum: 0,
    examples: [0],
    description: 'Documents waiting for the external embedder: stored, not yet searchable.',
  }),
  failed_count: Type.Integer({
    minimum: 0,
    examples: [0],
    description:
      'Documents the external embedder refused or could not embed: not searchable; upsert them again.',
  }),
  ...timestamps,
  archived_at: NullableTimestamp(),
});
export type VectorCollection = Static<typeof VectorCollectionSchema>;

const metadataValue = Type.Union([
  Type.String({ maxLength: 2000 }),
  Type.Number(),
  Type.Boolean(),
  Type.Array(Type.String({ maxLength: 500 }), { maxItems: 100 }),
]);

/** Flat metadata: strings, numbers, booleans and string arrays (no nesting, no null). */
export const MetadataInput = MapOf(metadataValue, {
  description: 'Flat metadata: string, number, boolean or string-array values (at most 64 keys).',
  maxProperties: 64,
  examples: [{ lang: 'en', year: 2026, tags: ['billing'] }],
});
export type Metadata = Static<typeof MetadataInput>;

const rangeCondition = Shape(
  {
    gt: Type.Optional(Type.Number()),
    gte: Type.Optional(Type.Number()),
    lt: Type.Optional(Type.Number()),
    lte: Type.Optional(Type.Number()),
  },
  { minProperties: 1, description: 'A range on a number field.' },
);
const inCondition = Shape(
  {
    in: Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
      minItems: 1,
      maxItems: 100,
    }),
  },
  { description: 'Any of these values (for a string array: any element).' },
);
const condition = Type.Union([Type.String(), Type.Number(), Type.Boolean(), inCondition, rangeCondition]);

/** A metadata filter: every condition must hold. */
export const FilterInput = MapOf(condition, {
  description:
    'Every condition must hold. A field equal to a value ({"lang": "en"}; on a string array: contains it), ' +
    'any of several ({"lang": {"in": ["en", "de"]}}), or a number range ({"year": {"gte": 2024, "lt": 2027}}).',
  maxProperties: 16,
  examples: [{ lang: 'en', year: { gte: 2025 } }],
});
export type Filter = Static<typeof FilterInput>;

export const collectionKeyInput = Type.String({
  minLength: 1,
  maxLength: 64,
  pattern: '^[a-z0-9][a-z0-9_-]*$',
  description: 'The collection key (lowercase letters, digits, - and _).',
  examples: ['support-articles'],
});

export const SearchHitSchema = Shape({
  id: Text('article-42#2', "The caller's document ID."),
  score: Type.Number({
    examples: [0.83],
    description: 'Higher is better: cosine similarity, dot product, or minus the euclidean distance.',
  }),
  text: NullableText('To reset a password, open Settings > Security.'),
  metadata: MetadataInput,
  vector: Type.Optional(Type.Array(Type.Number(), { description: 'With include_vectors only.' })),
});

export const DocumentStateSchema = Shape({
  id: Text('article-42#2'),
  status: Enum(['ready', 'pending', 'failed'] as const, {
    description: 'pending: an external embedding is on its way; failed: see embedding_error.',
  }),
  embedding_error: Nullable(Type.String()),
});
