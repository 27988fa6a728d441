// Insight views (issue 12 item 10, Insight Builder and Insight Views): saved analytics definitions with a
// source (an Object Analytics slice, a Custom BI template or a custom dataset), report style, dimensions
// and measures, refreshed manually (refresh_insight_view) or by a schedule (create_bi_scheduled_artifact
// with target insight_view). "Promote to BI" is create_insight_view with an object_analytics source.
import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import {
  INSIGHT_SOURCE_TYPES,
  InsightSourceSchema,
  InsightViewSchema,
  VisualizationSchema,
} from './bi-object-schemas.ts';
import type { BiInsightViewsTable } from './bi-object-tables.ts';
import { BiRunSchema } from './bi-schemas.ts';
import { viewRefreshed } from './insight-view-refresh.ts';
import { checkView, readView, type ViewDefinition } from './insight-view-source.ts';
import {
  definitionOfView,
  findInsightView,
  findInsightViewRow,
  type InsightViewRow,
  insertInsightView,
  listInsightViews,
  toInsightView,
  updateInsightViewRow,
} from './insight-view-store.ts';
import { readForRefresh, recordManualRefresh } from './object-refresh.ts';
import { ColumnName, MeasureSchema } from './query-definition.ts';

export const INSIGHT_VIEW = 'insight_view';

export const insightViewRecord = defineRecordType({
  type: INSIGHT_VIEW,
  module: 'product_analytics_bi',
  table: 'bi_insight_views',
  collection: '/v1/insights/views',
  key: 'insight_view',
  readScope: 'bi:read',
  hiddenWhen: 'archived_at',
  load: (db, workspaceId, id) => findInsightView(db, workspaceId, id),
  schema: InsightViewSchema,
  toResource: toInsightView,
});

const fields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  question: Type.String({ minLength: 1, maxLength: 1000, description: 'The question the view answers.' }),
  source: InsightSourceSchema,
  report_style: VisualizationSchema,
  dimensions: Type.Array(ColumnName('A column to group by.'), {
    maxItems: 10,
    description:
      'object_analytics: app, object_type, object_id (default all). BI sources: dataset columns to group by.',
  }),
  measures: Type.Array(MeasureSchema, {
    maxItems: 20,
    description:
      'object_analytics: {column} of events, unique_actors, first_seen, last_seen (default events and ' +
      'unique_actors). BI sources: as run_bi_query takes them (column + aggregate, or a metric key).',
  }),
};
const viewId = Type.String({ minLength: 1, maxLength: 255, description: 'The insight view.' });
const author = (ctx: OperationContext) => ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null;

const stored = (view: ViewDefinition) => ({
  source_type: view.source.type,
  source: JSON.stringify(view.source),
  dimensions: JSON.stringify(view.dimensions),
  measures: JSON.stringify(view.measures),
});

export const createInsightView = defineOperation({
  name: 'create_insight_view',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'create',
  creates: INSIGHT_VIEW,
  extension: true,
  summary: 'Save an insight view (Promote to BI)',
  description:
    'Saves a reusable insight view: name, question, source, report style, dimensions, measures. Promote ' +
    'to BI: source {type: object_analytics, app, object_type, object_id, window (or from/to)} saves the ' +
    'current Object Analytics slice. Source {type: bi_template | bi_dataset, dataset_key, query} runs a ' +
    'Custom BI query. Everything is checked now; nothing runs until refresh_insight_view or a schedule ' +
    '(create_bi_scheduled_artifact with target insight_view).',
  input: Strict({
    name: fields.name,
    question: Type.Optional(fields.question),
    source: fields.source,
    report_style: Type.Optional(fields.report_style),
    dimensions: Type.Optional(fields.dimensions),
    measures: Type.Optional(fields.measures),
  }),
  rest: { method: 'POST', path: '/v1/insights/views' },
  responseKey: 'insight_view',
  handler: async (ctx, input) => {
    const view = await checkView(
      ctx.db,
      ctx.workspaceId,
      { source: input.source, dimensions: input.dimensions ?? [], measures: input.measures ?? [] },
      { dialect: ctx.dialect, now: ctx.now, author: author(ctx) },
    );
    const row: BiInsightViewsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('biv'),
      name: input.name,
      question: input.question ?? null,
      ...stored(view),
      report_style: input.report_style ?? 'table',
      created_by: author(ctx),
      last_run_id: null,
      last_refreshed_at: null,
      last_result: null,
      created_at: ctx.now,
      updated_at: ctx.now,
      archived_at: null,
    };
    await insertInsightView(ctx.db, row);
    const insightView = toInsightView((await findInsightView(ctx.db, ctx.workspaceId, row.id))!);
    ctx.audit({ targetType: INSIGHT_VIEW, targetId: row.id, changedFields: inputFields(input) });
    return { body: { insight_view: insightView }, createdId: row.id };
  },
});

export const listInsightViewsOperation = defineOperation({
  name: 'list_insight_views',
  module: 'product_analytics_bi',
  scopes: ['bi:read'],
  kind: 'read',
  extension: true,
  summary: 'List insight views',
  description:
    'Lists insight views, newest first: the question each answers, its source, report style, dimensions ' +
    'and measures, whether it ever refreshed, when it last did, whether it is scheduled, whether the ' +
    'latest refresh succeeded or failed, and its last result. Filter by source_type.',
  input: Strict({ source_type: Type.Optional(Enum(INSIGHT_SOURCE_TYPES)), ...pageInput }),
  rest: { method: 'GET', path: '/v1/insights/views' },
  responseKey: 'insight_views',
  handler: async (ctx, input) => {
    const page = await listInsightViews(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_insight_views', input),
    );
    return { body: listBody('insight_views', page) };
  },
});

async function liveView(ctx: OperationContext, id: string): Promise<InsightViewRow> {
  const row = await findInsightView(ctx.db, ctx.workspaceId, id);
  if (!row || row.archived_at) throw notFound('insight view');
  return row;
}

const VIEW_FIELDS = ['name', 'question', 'source', 'report_style', 'dimensions', 'measures'] as const;

export const updateInsightView = defineOperation({
  name: 'update_insight_view',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'update',
  extension: true,
  summary: 'Change an insight view',
  description:
    "Changes an insight view's name, question (null clears it), report_style, source, dimensions or " +
    'measures; a changed definition is checked as at create (as the view author for metrics). Its last ' +
    'result stays until the next refresh. Archived views are not found.',
  input: Strict({
    view_id: viewId,
    name: Type.Optional(fields.name),
    question: Type.Optional(Type.Union([fields.question, Type.Null()])),
    source: Type.Optional(fields.source),
    report_style: Type.Optional(fields.report_style),
    dimensions: Type.Optional(fields.dimensions),
    measures: Type.Optional(fields.measures),
  }),
  rest: { method: 'PATCH', path: '/v1/insights/views/{view_id}' },
  responseKey: 'insight_view',
  handler: async (ctx, input) => {
    requireSomeField(input, VIEW_FIELDS);
    const row = await liveView(ctx, input.view_id);
    let definition = {};
    if (input.source || input.dimensions || input.measures) {
      const current = definitionOfView(row);
      // A new source of another kind starts from its own default dimensions and measures.
      const kindChanged = input.source !== undefined && input.source.type !== current.source.type;
      const view = await checkView(
        ctx.db,
        ctx.workspaceId,
        {
          source: input.source ?? current.source,
          dimensions: input.dimensions ?? (kindChanged ? [] : current.dimensions),
          measures: input.measures ?? (kindChanged ? [] : current.measures),
        },
        { dialect: ctx.dialect, now: ctx.now, author: row.created_by },
      );
      definition = stored(view);
    }
    const { changes, changed } = diffFields<BiInsightViewsTable>(row, { ...input, ...definition }, [
      'name',
      'question',
      'report_style',
      'source_type',
      'source',
      'dimensions',
      'measures',
    ]);
    if (changed.length) {
      await updateInsightViewRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
      const audited = changed.filter((f) => f !== 'source_type');
      ctx.audit({ targetType: INSIGHT_VIEW, targetId: row.id, changedFields: audited });
    }
    const insightView = toInsightView((await findInsightView(ctx.db, ctx.workspaceId, row.id))!);
    return { body: { insight_view: insightView } };
  },
});

export const archiveInsightView = defineOperation({
  name: 'archive_insight_view',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'archive',
  extension: true,
  summary: 'Archive an insight view',
  description:
    'Archives an insight view: hidden from lists and lookups, its schedules fail their next runs (archive ' +
    'them with archive_bi_object), dashboard tiles show it archived. Archiving again changes nothing.',
  input: Strict({ view_id: viewId }),
  rest: { method: 'DELETE', path: '/v1/insights/views/{view_id}' },
  responseKey: 'insight_view',
  handler: async (ctx, input) => {
    const row = await findInsightView(ctx.db, ctx.workspaceId, input.view_id);
    if (!row) throw notFound('insight view');
    const archived = row.archived_at !== null;
    const next = archived ? row : { ...row, archived_at: ctx.now, updated_at: ctx.now };
    if (!archived) {
      await updateInsightViewRow(ctx.db, ctx.workspaceId, row.id, {
        archived_at: ctx.now,
        updated_at: ctx.now,
      });
    }
    ctx.audit({ targetType: INSIGHT_VIEW, targetId: row.id, changedFields: archived ? [] : ['archived_at'] });
    return { body: { insight_view: toInsightView(next) } };
  },
});

export const refreshInsightView = defineOperation({
  name: 'refresh_insight_view',
  module: 'product_analytics_bi',
  scopes: ['bi:write'],
  kind: 'action',
  extension: true,
  summary: 'Refresh an insight view now',
  description:
    'Reads an insight view now (Object Analytics page for an object_analytics source, the Custom BI query ' +
    'otherwise; heavy-read path, time limit), stores the rows as its last_result and records a BI run ' +
    '(trigger manual). A failure (a definition no longer valid, a timeout) is recorded on the run and the ' +
    'view; the previous result stays.',
  input: Strict({ view_id: viewId }),
  rest: { method: 'POST', path: '/v1/insights/views/{view_id}/refresh' },
  responseKey: 'insight_view',
  response: Type.Object({ insight_view: InsightViewSchema, run: BiRunSchema }),
  heavyRead: async (ctx, input) => {
    const row = await findInsightViewRow(ctx.db, ctx.workspaceId, input.view_id);
    if (!row || row.archived_at) throw notFound('insight view');
    const env = { dialect: ctx.dialect, now: ctx.now, author: row.created_by };
    return readForRefresh(() => readView(ctx.db, ctx.workspaceId, definitionOfView(row), env));
  },
  handler: async (ctx, input, outcome) => {
    const row = await liveView(ctx, input.view_id);
    const run = await recordManualRefresh(ctx, {
      runType: 'insight_view_refresh',
      operation: 'refresh_insight_view',
      target: { type: INSIGHT_VIEW, id: row.id },
      outcome,
    });
    const changes = outcome.ok ? viewRefreshed(run.id, ctx.now, outcome.result) : { last_run_id: run.id };
    await updateInsightViewRow(ctx.db, ctx.workspaceId, row.id, changes);
    const insightView = toInsightView((await findInsightView(ctx.db, ctx.workspaceId, row.id))!);
    ctx.audit({ targetType: INSIGHT_VIEW, targetId: row.id, action: 'refresh', changedFields: [] });
    return { body: { insight_view: insightView, run } };
  },
});

export const insightViewOperations = [
  createInsightView,
  listInsightViewsOperation,
  updateInsightView,
  archiveInsightView,
  refreshInsightView,
];
