// The resources of dataset versions and manifests, declared once: responses, MCP outputSchema, OpenAPI and
// the domain events' data reuse them.
import { Type } from '@sinclair/typebox';
import {
  AnyJson,
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
import { ResultColumnSchema } from '../../product-analytics/bi/bi-schemas.ts';

export const DATASET_VERSION_STATUSES = ['proposed', 'approved', 'deprecated'] as const;
export type DatasetVersionStatus = (typeof DATASET_VERSION_STATUSES)[number];

export const DatasetVersionSchema = Resource('DataAgentDatasetVersion', {
  id: RecordId('ddv'),
  dataset_key: Text('content_performance', 'The BI template or custom dataset key snapshotted.'),
  version: Type.Integer({ minimum: 1, examples: [3], description: '1, 2, ... per dataset key.' }),
  template_key: Text('content_performance', 'The template the dataset reads (itself for a template).'),
  dataset_id: NullableText('bid_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The custom dataset; null for a template.'),
  description: NullableText('Weekly content review source.'),
  status: Enum(DATASET_VERSION_STATUSES, {
    description: 'proposed (new), approved (by a decision), deprecated (a later version was approved).',
  }),
  columns: Type.Array(ResultColumnSchema, { description: 'The column schema of the snapshot.' }),
  row_count: Type.Integer({ minimum: 0, examples: [42] }),
  checksum: Text(
    '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    'sha256 (hex) of the canonical rows: each row as canonical JSON (keys sorted), the texts sorted, joined as a JSON array.',
  ),
  query: AnyJson('The BI query definition that produced the rows, as run (run_bi_query input).'),
  job_id: NullableText('dxj_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The execution job that took the snapshot.'),
  decision_id: NullableText('dad_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The decision that approved it.'),
  created_by: NullableText('key_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The credential that took the snapshot.'),
  approved_at: NullableTimestamp(),
  deprecated_at: NullableTimestamp(),
  ...timestamps,
});

export const FreshnessSchema = Shape(
  {
    max_age_hours: Type.Integer({ minimum: 1, maximum: 8760, examples: [24] }),
    note: Type.Optional(Text('Snapshot every Monday before the content review.')),
  },
  { description: 'How fresh consumers can expect the data: a new version at most every max_age_hours.' },
);

export const ColumnDocSchema = Shape({
  column: Text('published_count', 'A column of the version.'),
  description: Text('Entries and posts published in the period.'),
});

export const DatasetManifestSchema = Resource('DataAgentDatasetManifest', {
  id: RecordId('ddm'),
  version_id: RecordId('ddv', 'The dataset version described.'),
  dataset_key: Text('content_performance'),
  owner: Text('content-analytics team'),
  description: Text('Content items by type and status, for the weekly review.'),
  tags: Type.Array(Type.String(), { examples: [['content', 'weekly']] }),
  freshness: Nullable(FreshnessSchema),
  column_docs: Type.Array(ColumnDocSchema),
  source_object_ids: Type.Array(RecordId('dso'), { description: 'Source objects the version reads.' }),
  ...timestamps,
});
