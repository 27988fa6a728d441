// The BI resources as the API returns them, declared once (responses, MCP outputSchema, OpenAPI).
import { Type } from '@sinclair/typebox';
import {
  Enum,
  Nullable,
  NullableText,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
  timestamps,
} from '../../../core/resource-schema.ts';
import { RunResource } from '../../../core/run-resource.ts';
import { MapOf } from '../../../core/schema.ts';
import { FilterSchema, QueryDefinitionSchema } from './query-definition.ts';
import { COLUMN_ROLES, COLUMN_TYPES } from './templates.ts';

export const BiColumnSchema = Shape({
  name: Text('amount_cents'),
  type: Enum(COLUMN_TYPES, { description: 'string, integer, money (integer cents), timestamp or boolean.' }),
  role: Enum(COLUMN_ROLES, { description: 'dimension, measure or time.' }),
  description: Text('Deal value in cents of its currency.'),
  currency_column: Type.Optional(Text('currency', 'Money only: the column with its ISO currency.')),
});

export const BiTemplateSchema = Resource('BiTemplate', {
  key: Text('crm_pipeline'),
  name: Text('CRM pipeline'),
  description: Text('Deals by stage, stage key and currency, with counts and values.'),
  columns: Type.Array(BiColumnSchema),
  time_column: Text('created_at', 'The timestamp column time_range and time_grain use by default.'),
  default_query: MapOf(Type.Unknown(), { description: 'What a bare {dataset_key, limit} runs.' }),
});

export const BiDatasetSchema = Resource('BiDataset', {
  id: RecordId('bids'),
  key: Text('won_deals', 'How queries address it (dataset_key).'),
  name: Text('Won deals'),
  description: NullableText('Deals in won stages, by currency.'),
  template_key: Text('crm_pipeline'),
  columns: Type.Array(BiColumnSchema, { description: 'The columns it exposes, with its own descriptions.' }),
  filters: Type.Array(FilterSchema, { description: 'Applied to every query of the dataset.' }),
  created_by: Nullable(Type.String(), { description: 'The credential that created it.' }),
  ...timestamps,
});

export const BiQuerySchema = Resource('BiQuery', {
  id: RecordId('biq'),
  name: NullableText('Pipeline by stage'),
  dataset_key: Text('crm_pipeline'),
  definition: QueryDefinitionSchema,
  created_by: Nullable(Type.String(), { description: 'The credential that saved it.' }),
  last_run_id: Nullable(Type.String(), { description: 'Its latest run (GET /v1/bi/runs/{run_id}).' }),
  last_run_at: Nullable(Timestamp()),
  ...timestamps,
});

export const BiMetricSchema = Resource('BiMetric', {
  id: RecordId('bim'),
  key: Text('win_rate'),
  name: Text('Win rate'),
  description: NullableText('Share of closed deal value that was won.'),
  dataset_key: Text('crm_pipeline'),
  expression: Text("sum(amount_cents where stage_kind = 'won') / sum(amount_cents where is_open = false)"),
  format: Enum(['number', 'money', 'percent'] as const),
  time_column: Nullable(Type.String()),
  synonyms: Type.Array(Type.String()),
  example_questions: Type.Array(Type.String()),
  status: Enum(['draft', 'approved', 'deprecated'] as const, {
    description: 'Only approved metrics can be used by other credentials (a draft: by its creator only).',
  }),
  sql: Text('select sum(...) as "win_rate" from "crm_pipeline" as "t"', 'The SQL it compiles to (lineage).'),
  sql_parameters: Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])),
  created_by: Nullable(Type.String()),
  ...timestamps,
});

export const BiRelatedSchema = Shape({
  type: Text('bi_query', 'bi_query, bi_dataset, bi_metric, bi_report, bi_export, ...'),
  id: Text('biq_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
});

export const BiRunSchema = Type.Object(
  {
    ...RunResource.properties,
    related: Type.Array(BiRelatedSchema, { description: 'The BI objects the run was for.' }),
    row_count: Nullable(Type.Integer({ minimum: 0 }), { description: 'Rows it produced, once known.' }),
  },
  { title: 'BiRun', additionalProperties: false },
);

export const ResultColumnSchema = Shape({
  name: Text('value_cents'),
  type: Enum([...COLUMN_TYPES, 'number'] as const, { description: 'number: a decimal (avg, ratios).' }),
  role: Enum(['dimension', 'time', 'measure'] as const),
  currency_column: Type.Optional(
    Text(
      'currency',
      'An amount of money (sum, avg, min, max of a money column; a money metric): the result column with its currency.',
    ),
  ),
  metric: Type.Optional(Text('win_rate')),
});

export const BiResultSchema = Shape({
  columns: Type.Array(ResultColumnSchema),
  rows: Type.Array(MapOf(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])), {
    examples: [[{ stage_key: 'won', currency: 'USD', deals: 2, value_cents: 350000 }]],
  }),
  row_count: Type.Integer({ minimum: 0 }),
  truncated: Type.Boolean({ description: 'More rows exist than the limit returned.' }),
});
