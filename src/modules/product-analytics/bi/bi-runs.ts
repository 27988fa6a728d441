// Custom BI runs (item 9): the execution history of queries, refreshes, exports and scheduled jobs.
import { Type } from '@sinclair/typebox';
import { defineOperation } from '../../../core/define-operation.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { pageBody } from '../../../core/response-schema.ts';
import { RUN_STATUSES } from '../../../core/run-resource.ts';
import { Strict } from '../../../core/schema.ts';
import { findBiRun, listBiRuns } from './bi-run-store.ts';
import { BiRunSchema } from './bi-schemas.ts';

export const listBiRunsOperation = defineOperation({
  name: 'list_bi_runs',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'List Custom BI runs',
  description:
    'Lists BI runs newest first: query runs, report and insight-view refreshes, exports and scheduled jobs, ' +
    'with status, attempts, trigger (manual, schedule, analytics_pipeline), times, related objects, rows ' +
    'and error. Filter by status, trigger or run_type.',
  input: Strict({
    status: Type.Optional(Enum(RUN_STATUSES)),
    trigger: Type.Optional(Type.String({ minLength: 1, maxLength: 64, examples: ['schedule'] })),
    run_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64, examples: ['bi_query'] })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/bi/runs' },
  // No index serves these filters: a rare status or trigger would walk every BI run of the workspace.
  heavy: heavyFilters({ scans: ['status', 'trigger', 'run_type'] }),
  responseKey: 'runs',
  response: pageBody('runs', BiRunSchema),
  handler: async (ctx, input) => {
    const page = await listBiRuns(ctx.db, ctx.workspaceId, input, pageRequest('list_bi_runs', input));
    return { body: listBody('runs', page) };
  },
});

export const getBiRun = defineOperation({
  name: 'get_bi_run',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'Get a Custom BI run',
  description:
    'Returns one BI run: status, attempts, trigger, queued/started/finished times, duration, related ' +
    'objects (query, report, export, schedule), rows produced and the error of a failed attempt.',
  input: Strict({ run_id: Type.String({ minLength: 1, maxLength: 100 }) }),
  rest: { method: 'GET', path: '/v1/bi/runs/{run_id}' },
  responseKey: 'run',
  response: Type.Object({ run: BiRunSchema }),
  handler: async (ctx, input) => ({ body: { run: await findBiRun(ctx.db, ctx.workspaceId, input.run_id) } }),
});
