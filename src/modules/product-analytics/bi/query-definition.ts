// The query definition of Custom BI, declared once: run_bi_query takes it, saved queries store it, reports
// and insight views reuse it. Names are checked against the dataset's governed columns at compile time
// (compile-query.ts); this schema only fixes the shape.
import { type Static, Type } from '@sinclair/typebox';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';

export const FILTER_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'not_in',
  'contains',
  'starts_with',
  'is_null',
  'is_not_null',
] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

export const AGGREGATES = ['count', 'count_distinct', 'sum', 'avg', 'min', 'max'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

export const RELATIVE_RANGES = [
  'today',
  'yesterday',
  'last_7_days',
  'last_30_days',
  'this_month',
  'last_month',
  'this_quarter',
  'this_year',
] as const;
export type RelativeRange = (typeof RELATIVE_RANGES)[number];

export const TIME_GRAINS = ['hour', 'day', 'week', 'month'] as const;
export type TimeGrain = (typeof TIME_GRAINS)[number];

export const MAX_QUERY_LIMIT = 1000;
export const DEFAULT_QUERY_LIMIT = 25;

/**
 * A column or output name: lower snake case, as the templates declare them. The example is a name of the
 * crm_pipeline template that fits the field (agents read examples as hints).
 */
export const ColumnName = (description: string, example = 'stage_key') =>
  Type.String({ pattern: '^[a-z][a-z0-9_]{0,62}$', description, examples: [example] });

export const DatasetKey = Type.String({
  pattern: '^[a-z][a-z0-9_]{0,62}$',
  description: 'A template key (GET /v1/bi/templates) or the key of a custom dataset of this workspace.',
  examples: ['crm_pipeline'],
});

const Scalar = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);

export const FilterSchema = Strict(
  {
    column: ColumnName('A column of the dataset.', 'stage_kind'),
    operator: Enum(FILTER_OPERATORS, {
      description:
        'eq, neq, gt, gte, lt, lte (a value), in and not_in (a list), contains and starts_with (text), ' +
        'is_null and is_not_null (no value).',
    }),
    value: Type.Optional(
      Type.Union([Scalar, Type.Array(Scalar, { minItems: 1, maxItems: 100 })], {
        description:
          'Typed by the column: text, an integer (money in cents), true/false, or an ISO 8601 instant.',
      }),
    ),
  },
  { description: 'One condition; every filter must hold.' },
);
export type Filter = Static<typeof FilterSchema>;

export const MeasureSchema = Strict(
  {
    column: Type.Optional(
      ColumnName('The column aggregated; count may omit it (count of rows).', 'amount_cents'),
    ),
    aggregate: Type.Optional(
      Enum(AGGREGATES, { description: 'count, count_distinct, sum, avg, min or max.' }),
    ),
    metric: Type.Optional(
      ColumnName(
        'Instead of column and aggregate: the key of a metric of this dataset (create_bi_metric).',
        'win_rate',
      ),
    ),
    as: Type.Optional(
      ColumnName('Name of the result column (default aggregate_column, or the metric key).', 'value_cents'),
    ),
  },
  { description: 'An aggregate of a column, or a governed metric.' },
);
export type Measure = Static<typeof MeasureSchema>;

export const TimeRangeSchema = Strict(
  {
    from: Type.Optional(Type.String({ format: 'date-time', description: 'Inclusive start (ISO 8601).' })),
    to: Type.Optional(Type.String({ format: 'date-time', description: 'Exclusive end (ISO 8601).' })),
    relative: Type.Optional(
      Enum(RELATIVE_RANGES, {
        description:
          'Instead of from/to, in the query timezone: today, yesterday, last_7_days and last_30_days ' +
          '(ending with today), this_month, last_month, this_quarter, this_year.',
      }),
    ),
  },
  { description: 'Over the time column: absolute from/to, or a relative range.' },
);

/** The fields of a query definition (run_bi_query's input, a report's query). */
export const queryDefinitionFields = {
  dataset_key: DatasetKey,
  dimensions: Type.Optional(
    Type.Array(ColumnName('A column to group by.'), { maxItems: 10, description: 'Columns to group by.' }),
  ),
  measures: Type.Optional(Type.Array(MeasureSchema, { maxItems: 20 })),
  filters: Type.Optional(Type.Array(FilterSchema, { maxItems: 20 })),
  time_column: Type.Optional(
    ColumnName(
      'The timestamp column time_range and time_grain use (default: the dataset time column).',
      'created_at',
    ),
  ),
  time_range: Type.Optional(TimeRangeSchema),
  time_grain: Type.Optional(
    Enum(TIME_GRAINS, {
      description:
        'Group by local hour, day, week (from Monday) or month of the time column; needs time_range.',
    }),
  ),
  timezone: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'IANA zone of time_grain and relative ranges (default UTC).',
      examples: ['Europe/Berlin'],
    }),
  ),
  sort: Type.Optional(
    Type.Array(
      Strict({
        column: ColumnName('A result column (a dimension, the time bucket or a measure name).'),
        direction: Type.Optional(Enum(['asc', 'desc'] as const)),
      }),
      { maxItems: 5, description: 'Result order (nulls last); the remaining dimensions break ties.' },
    ),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_QUERY_LIMIT,
      description: 'Rows returned, 1 to 1000 (default 25); truncated says whether more exist.',
    }),
  ),
};

export const QueryDefinitionSchema = Strict(queryDefinitionFields, {
  description: 'A governed BI query: names are checked against the dataset columns.',
});
export type QueryDefinition = Static<typeof QueryDefinitionSchema>;

/** The fields a definition keeps when saved (everything the schema has; defaults are applied at run). */
export function definitionOf(input: Record<string, unknown>): QueryDefinition {
  const definition: Record<string, unknown> = {};
  for (const key of Object.keys(queryDefinitionFields)) {
    if (input[key] !== undefined) definition[key] = input[key];
  }
  return definition as QueryDefinition;
}
