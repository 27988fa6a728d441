// run_bi_query (the query run of the spec), saved queries and their REST lookup. The query itself runs as
// the operation's heavyRead: on the heavy-read connections, under the workspace's heavy slot and time limit,
// before the transaction that saves the query and its run. A query that fails as it runs commits a failed
// run in a transaction of its own (heavyReadFailed) and the call answers with the error.
import { performance } from 'node:perf_hooks';
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { recordBiRun } from './bi-run-store.ts';
import { BiQuerySchema, BiResultSchema, BiRunSchema } from './bi-schemas.ts';
import { insertQuery, listQueries, toBiQuery } from './bi-store.ts';
import { DatasetKey, definitionOf, queryDefinitionFields } from './query-definition.ts';
import { runQueryDefinition } from './run-query.ts';

export const biQueryRecord = defineRecordType({
  type: 'bi_query',
  module: 'product_analytics_bi',
  table: 'bi_queries',
  collection: '/v1/bi/queries',
  key: 'query',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  schema: BiQuerySchema,
  toResource: toBiQuery,
});

/** What every query run records of its call, completed or failed. */
const runFields = (ctx: OperationContext) => ({
  workspaceId: ctx.workspaceId,
  runType: 'bi_query',
  operation: 'run_bi_query',
  trigger: ctx.surface === 'worker' ? 'schedule' : 'manual',
  startedAt: ctx.now,
  requestId: ctx.requestId,
  credentialId: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
});

export const runBiQuery = defineOperation({
  name: 'run_bi_query',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'action',
  summary: 'Run a governed BI query',
  description:
    'Runs a query over a BI dataset (a template from list_bi_templates or a custom dataset): dimensions, ' +
    'measures (column + aggregate, or an approved metric key), filters, time_range, time_grain with timezone, ' +
    'sort, limit (1-1000, default 25). Only {dataset_key} runs the dataset default query. Every name is ' +
    'checked against the dataset columns. Money sums are integer cents grouped by currency. Saves the query ' +
    '(list_bi_queries) and records a run (list_bi_runs); a query past the time limit fails with query_timeout ' +
    'and is recorded as a failed run (not saved).',
  input: Strict({
    ...queryDefinitionFields,
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'A name for the saved query.' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/bi/queries/run' },
  responseKey: 'result',
  response: Type.Object({ query: BiQuerySchema, result: BiResultSchema, run: BiRunSchema }),
  heavyRead: async (ctx, input) => {
    const started = performance.now();
    const { compiled, result } = await runQueryDefinition(ctx.db, ctx.workspaceId, definitionOf(input), {
      dialect: ctx.dialect,
      now: ctx.now,
      credentialId: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
    });
    return {
      definition: compiled.definition,
      metrics: compiled.metrics.map((m) => m.id),
      result,
      durationMs: Math.round(performance.now() - started),
    };
  },
  // A query that ran and failed (query_timeout, a database error) is a failed run; a definition refused
  // before it ran (validation_failed, an unknown dataset) records nothing. The query is not saved.
  heavyReadFailed: async (ctx, input, { error, durationMs }) => {
    if (error.code === 'validation_failed' || error.code === 'resource_not_found') return;
    await recordBiRun(ctx.db, {
      ...runFields(ctx),
      input: { dataset_key: input.dataset_key },
      related: [],
      status: 'failed',
      durationMs,
      rowCount: null,
      error: { code: error.code, message: error.message },
    });
  },
  handler: async (ctx, input, ran) => {
    const queryId = newId('biq');
    const run = await recordBiRun(ctx.db, {
      ...runFields(ctx),
      input: { query_id: queryId, dataset_key: input.dataset_key },
      related: [{ type: 'bi_query', id: queryId }, ...ran.metrics.map((id) => ({ type: 'bi_metric', id }))],
      status: 'completed',
      durationMs: ran.durationMs,
      rowCount: ran.result.row_count,
    });
    const query = await insertQuery(ctx.db, {
      workspace_id: ctx.workspaceId,
      id: queryId,
      name: input.name ?? null,
      dataset_key: input.dataset_key,
      definition: JSON.stringify(ran.definition),
      created_by: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
      last_run_id: run.id,
      last_run_at: ctx.now,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    });
    ctx.audit({ targetType: 'bi_query', targetId: query.id, action: 'run', changedFields: [] });
    return { body: { query, result: ran.result, run } };
  },
});

export const listBiQueries = defineOperation({
  name: 'list_bi_queries',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'List saved BI queries',
  description:
    'Lists the queries run_bi_query saved, newest first, each with its definition as run and its latest run; ' +
    'filter by dataset_key. A saved query is what exports and schedules run again.',
  input: Strict({ dataset_key: Type.Optional(DatasetKey), ...pageInput }),
  rest: { method: 'GET', path: '/v1/bi/queries' },
  responseKey: 'queries',
  handler: async (ctx, input) => {
    const page = await listQueries(ctx.db, ctx.workspaceId, input, pageRequest('list_bi_queries', input));
    return { body: listBody('queries', page) };
  },
});
