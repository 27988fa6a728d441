// Saved reports (issue 12 item 5): a query definition over a dataset, a visualization and the result of
// its last refresh. A refresh runs the query through the core (run-query.ts) as the report's author for
// metric governance: the author's draft metrics work in the author's reports, others must be approved.
import { type Static, Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { BiReportSchema, VisualizationSchema } from './bi-object-schemas.ts';
import type { BiReportsTable } from './bi-object-tables.ts';
import { BiRunSchema } from './bi-schemas.ts';
import { readForRefresh, recordManualRefresh, underField } from './object-refresh.ts';
import { DatasetKey, QueryDefinitionSchema } from './query-definition.ts';
import { refreshReportRead, reportRefreshed } from './report-refresh.ts';
import {
  findReport,
  findReportRow,
  insertReport,
  listReports,
  toBiReport,
  updateReportRow,
} from './report-store.ts';
import { prepareQuery } from './run-query.ts';

export const REPORT = 'bi_report';

export const biReportRecord = defineRecordType({
  type: REPORT,
  module: 'product_analytics_bi',
  table: 'bi_reports',
  collection: '/v1/bi/reports',
  key: 'report',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  load: (db, workspaceId, id) => findReport(db, workspaceId, id),
  schema: BiReportSchema,
  toResource: toBiReport,
});

export const reportFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.String({ maxLength: 2000 }),
  query: QueryDefinitionSchema,
  visualization: VisualizationSchema,
};

export const createBiReport = defineOperation({
  name: 'create_bi_report',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  creates: REPORT,
  summary: 'Save a BI report',
  description:
    'Saves a report: name, description, a query definition as run_bi_query takes it (dataset_key, ' +
    'dimensions, measures, filters, time_range, time_grain, sort, limit) and a visualization (table, bar, ' +
    'line, area, pie, number). The query is checked now (validation_failed naming query.<field>); metrics ' +
    'must be approved unless you created the draft. Nothing runs: refresh_bi_report fills last_result, and ' +
    'create_bi_scheduled_artifact (target report) refreshes it on a schedule.',
  input: Strict({
    name: reportFields.name,
    description: Type.Optional(reportFields.description),
    query: reportFields.query,
    visualization: Type.Optional(reportFields.visualization),
  }),
  rest: { method: 'POST', path: '/v1/bi/reports' },
  responseKey: 'report',
  handler: async (ctx, input) => {
    const author = ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null;
    const compiled = await underField('query', () =>
      prepareQuery(ctx.db, ctx.workspaceId, input.query, {
        dialect: ctx.dialect,
        now: ctx.now,
        credentialId: author,
      }),
    );
    const row = {
      workspace_id: ctx.workspaceId,
      id: newId('birep'),
      name: input.name,
      description: input.description ?? null,
      dataset_key: input.query.dataset_key,
      definition: JSON.stringify(compiled.definition),
      visualization: input.visualization ?? 'table',
      created_by: author,
      last_run_id: null,
      last_refreshed_at: null,
      last_result: null,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await insertReport(ctx.db, row);
    const report = toBiReport((await findReport(ctx.db, ctx.workspaceId, row.id))!);
    ctx.audit({ targetType: REPORT, targetId: row.id, changedFields: inputFields(input) });
    return { body: { report }, createdId: row.id };
  },
});

export const listBiReports = defineOperation({
  name: 'list_bi_reports',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  summary: 'List saved BI reports',
  description:
    'Lists saved reports, newest first, each with its query definition, visualization, whether and when ' +
    'it last refreshed (status, error, run), its schedules and the result of its last successful refresh. ' +
    'Filter by dataset_key. Archived reports are not listed.',
  input: Strict({ dataset_key: Type.Optional(DatasetKey), ...pageInput }),
  rest: { method: 'GET', path: '/v1/bi/reports' },
  responseKey: 'reports',
  handler: async (ctx, input) => {
    const page = await listReports(ctx.db, ctx.workspaceId, input, pageRequest('list_bi_reports', input));
    return { body: listBody('reports', page) };
  },
});

export const refreshBiReport = defineOperation({
  name: 'refresh_bi_report',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'action',
  extension: true,
  summary: 'Refresh a BI report now',
  description:
    "Runs a report's query now (heavy-read path, time limit) and stores the result as its last_result; " +
    'records a BI run (trigger manual). If the query no longer runs (an archived dataset, a metric no ' +
    'longer approved, a timeout) the run and the report show the failure and the previous result stays.',
  input: Strict({
    bi_report_id: Type.String({ minLength: 1, maxLength: 255, description: 'The report to refresh.' }),
  }),
  rest: { method: 'POST', path: '/v1/bi/reports/{bi_report_id}/refresh' },
  responseKey: 'report',
  response: Type.Object({ report: BiReportSchema, run: BiRunSchema }),
  heavyRead: async (ctx, input) => {
    const row = await findReportRow(ctx.db, ctx.workspaceId, input.bi_report_id);
    if (!row || row.archived_at) throw notFound('report');
    return readForRefresh(() => refreshReportRead(ctx.db, ctx.workspaceId, row, ctx));
  },
  handler: async (ctx, input, outcome) => {
    const row = await findReport(ctx.db, ctx.workspaceId, input.bi_report_id);
    if (!row || row.archived_at) throw notFound('report');
    const run = await recordManualRefresh(ctx, {
      runType: 'bi_report_refresh',
      operation: 'refresh_bi_report',
      target: { type: REPORT, id: row.id },
      outcome,
    });
    const changes = outcome.ok ? reportRefreshed(run.id, ctx.now, outcome.result) : { last_run_id: run.id };
    await updateReportRow(ctx.db, ctx.workspaceId, row.id, changes);
    const report = toBiReport((await findReport(ctx.db, ctx.workspaceId, row.id))!);
    ctx.audit({ targetType: REPORT, targetId: row.id, action: 'refresh', changedFields: [] });
    return { body: { report, run } };
  },
});

/** What update_bi_object may change on a report (collection reports). */
export const ReportUpdate = Strict({
  name: Type.Optional(reportFields.name),
  description: Type.Optional(Type.Union([reportFields.description, Type.Null()])),
  query: Type.Optional(reportFields.query),
  visualization: Type.Optional(reportFields.visualization),
});
const REPORT_COLUMNS = ['name', 'description', 'definition', 'dataset_key', 'visualization'] as const;

/** update_bi_object on reports: a new query is checked as the author's (governance stays the author's). */
export async function updateReport(ctx: OperationContext, id: string, patch: Static<typeof ReportUpdate>) {
  requireSomeField(patch, Object.keys(ReportUpdate.properties));
  const row = await findReport(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('report');
  let definition: string | undefined;
  if (patch.query) {
    const query = patch.query;
    const compiled = await underField('query', () =>
      prepareQuery(ctx.db, ctx.workspaceId, query, {
        dialect: ctx.dialect,
        now: ctx.now,
        credentialId: row.created_by,
      }),
    );
    definition = JSON.stringify(compiled.definition);
  }
  const { changes, changed } = diffFields<BiReportsTable>(
    row,
    { ...patch, definition, dataset_key: patch.query?.dataset_key },
    REPORT_COLUMNS,
  );
  if (changed.length) {
    await updateReportRow(ctx.db, ctx.workspaceId, id, { ...changes, updated_at: ctx.now });
    const audited = changed.map((f) => (f === 'definition' || f === 'dataset_key' ? 'query' : f));
    ctx.audit({ targetType: REPORT, targetId: id, changedFields: [...new Set(audited)] });
  }
  return toBiReport((await findReport(ctx.db, ctx.workspaceId, id))!);
}

/** archive_bi_object on reports: idempotent; dashboards keep their tiles and show the report archived. */
export async function archiveReport(ctx: OperationContext, id: string) {
  const row = await findReport(ctx.db, ctx.workspaceId, id);
  if (!row) throw notFound('report');
  if (!row.archived_at) {
    await updateReportRow(ctx.db, ctx.workspaceId, id, { archived_at: ctx.now, updated_at: ctx.now });
  }
  ctx.audit({ targetType: REPORT, targetId: id, changedFields: row.archived_at ? [] : ['archived_at'] });
  const report = toBiReport(row.archived_at ? row : { ...row, archived_at: ctx.now, updated_at: ctx.now });
  return { object: report, archived_at: report.archived_at! };
}
