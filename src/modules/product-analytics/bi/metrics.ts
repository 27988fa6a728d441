// Governed metrics (item 4): an expression of the metric grammar over one dataset's columns, checked at
// create (unknown column or function: validation_failed on expression), stored with the SQL it compiles to.
// A new metric is a draft: usable in queries by its creator only until update_bi_object approves it.
import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { fail, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { insertMetric, listMetrics, metricKeyTaken, metricSql, toBiMetric } from './bi-metric-store.ts';
import { BiMetricSchema } from './bi-schemas.ts';
import { resolveDataset } from './bi-store.ts';
import { checkMetric, parseMetric } from './metric-expression.ts';
import { ColumnName, DatasetKey } from './query-definition.ts';

export const biMetricRecord = defineRecordType({
  type: 'bi_metric',
  module: 'product_analytics_bi',
  table: 'bi_metrics',
  collection: '/v1/bi/metrics',
  key: 'metric',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  schema: BiMetricSchema,
  toResource: toBiMetric,
});

const Phrases = (description: string) =>
  Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 20, description }));

export const createBiMetric = defineOperation({
  name: 'create_bi_metric',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  creates: 'bi_metric',
  summary: 'Create a governed BI metric (draft)',
  description:
    'Defines a metric over a dataset with an expression such as ' +
    "sum(amount_cents where stage_kind = 'won') / sum(amount_cents): aggregates (count, count_distinct, " +
    'sum, avg, min, max) of dataset columns with an optional where filter, + - * /, numbers, parentheses. ' +
    'Unknown columns or functions are rejected. It starts as a draft (only its creator may use it in ' +
    'run_bi_query until it is approved); the answer shows the SQL it compiles to.',
  input: Strict({
    key: ColumnName('Unique in the workspace; measures name it as {metric: key}.', 'win_rate'),
    name: Type.String({ minLength: 1, maxLength: 200 }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    dataset_key: DatasetKey,
    expression: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'See docs/modules/bi.md, grammar.',
    }),
    format: Type.Optional(Enum(['number', 'money', 'percent'] as const, { description: 'Default number.' })),
    time_column: Type.Optional(
      ColumnName('The timestamp column the metric is usually read over.', 'closed_at'),
    ),
    synonyms: Phrases('Other names people use for it (for natural-language questions later).'),
    example_questions: Phrases('Questions it answers.'),
  }),
  rest: { method: 'POST', path: '/v1/bi/metrics' },
  responseKey: 'metric',
  handler: async (ctx, input) => {
    const dataset = await resolveDataset(ctx.db, ctx.workspaceId, input.dataset_key);
    const columns = new Map(dataset.columns.map((c) => [c.name, c]));
    const parsed = parseMetric(input.expression, 'expression');
    if ('error' in parsed) throw validationFailed([parsed.error]);
    const errors = checkMetric(parsed.ast, columns, 'expression');
    if (input.time_column && columns.get(input.time_column)?.type !== 'timestamp') {
      errors.push({ field: 'time_column', message: `is not a timestamp column of ${input.dataset_key}` });
    }
    if (errors.length) throw validationFailed(errors);
    if (await metricKeyTaken(ctx.db, ctx.workspaceId, input.key)) {
      throw fail('conflict', { message: `A metric with the key ${input.key} exists in this workspace.` });
    }
    const compiled = metricSql(ctx.db, parsed.ast, columns, input.dataset_key, input.key);
    const metric = await insertMetric(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: newId('bim'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      dataset_key: input.dataset_key,
      expression: input.expression,
      format: input.format ?? 'number',
      time_column: input.time_column ?? null,
      synonyms: JSON.stringify(input.synonyms ?? []),
      example_questions: JSON.stringify(input.example_questions ?? []),
      status: 'draft',
      compiled_sql: compiled.sql,
      sql_parameters: JSON.stringify(compiled.parameters),
      created_by: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    });
    ctx.audit({ targetType: 'bi_metric', targetId: metric.id, changedFields: inputFields(input) });
    return { body: { metric }, createdId: metric.id };
  },
});

export const listBiMetrics = defineOperation({
  name: 'list_bi_metrics',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  summary: 'List governed BI metrics',
  description:
    'Lists the metrics of the workspace, newest first, with expression, compiled SQL, format, synonyms, ' +
    'example questions and status (draft, approved, deprecated); filter by dataset_key or status.',
  input: Strict({
    dataset_key: Type.Optional(DatasetKey),
    status: Type.Optional(Enum(['draft', 'approved', 'deprecated'] as const)),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/bi/metrics' },
  heavy: heavyFilters({ indexed: ['dataset_key'], scans: ['status'] }),
  responseKey: 'metrics',
  handler: async (ctx, input) => {
    const page = await listMetrics(ctx.db, ctx.workspaceId, input, pageRequest('list_bi_metrics', input));
    return { body: listBody('metrics', page) };
  },
});
