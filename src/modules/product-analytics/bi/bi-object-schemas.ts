// The saved BI objects as the API returns them (reports, dashboards, insight views), declared once.
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
import { RUN_STATUSES } from '../../../core/run-resource.ts';
import { Strict } from '../../../core/schema.ts';
import { objectFilters, windowInputs } from '../object-analytics-schemas.ts';
import { VISUALIZATIONS } from './bi-object-tables.ts';
import { BiResultSchema } from './bi-schemas.ts';
import {
  DatasetKey,
  MeasureSchema,
  QueryDefinitionSchema,
  queryDefinitionFields,
} from './query-definition.ts';

export const VisualizationSchema = Enum(VISUALIZATIONS, {
  description: 'How it is drawn: table, bar, line, area, pie or number.',
});

/** What a refreshable object (report, insight view) shows of its refreshes and schedules. */
export const refreshStateFields = {
  ever_refreshed: Type.Boolean({ description: 'Whether a refresh has ever succeeded.' }),
  last_refreshed_at: NullableTimestamp('When a refresh last succeeded (last_result is from it).'),
  last_refresh_status: Nullable(Enum(RUN_STATUSES), {
    description: 'Status of the latest refresh run, manual or scheduled (failed: see last_refresh_error).',
  }),
  last_refresh_run_id: Nullable(RecordId('run'), { description: 'That run: GET /v1/bi/runs/{run_id}.' }),
  last_refresh_error: Nullable(Shape({ code: Type.String(), message: Type.String() }), {
    description: 'Why the latest refresh failed; null when it did not.',
  }),
  scheduled: Type.Boolean({ description: 'Whether an active scheduled artifact refreshes it.' }),
  schedule_ids: Type.Array(RecordId('bisch'), {
    description: 'Its live scheduled artifacts (create_bi_scheduled_artifact with this target).',
  }),
  next_refresh_at: NullableTimestamp('The earliest next run of its active schedules.'),
  last_result: Nullable(BiResultSchema, { description: 'The result of the last successful refresh.' }),
};

export const BiReportSchema = Resource('BiReport', {
  id: RecordId('birep'),
  name: Text('Pipeline by stage'),
  description: NullableText('Open deal value per stage and currency.'),
  dataset_key: Text('crm_pipeline'),
  query: QueryDefinitionSchema,
  visualization: VisualizationSchema,
  created_by: Nullable(Type.String(), {
    description: 'The author: its draft metrics are usable by this report; others must be approved.',
  }),
  ...refreshStateFields,
  ...timestamps,
  archived_at: NullableTimestamp('Set when archived (archive_bi_object).'),
});

export const TILE_TYPES = ['report', 'metric', 'insight_view'] as const;

export const TileRefSchema = Shape({
  type: Enum(TILE_TYPES, { description: 'report, metric or insight_view.' }),
  id: RecordId('birep', 'The ID of that object in this workspace.'),
});

export const TilePositionSchema = Shape({
  x: Type.Integer({ minimum: 0, maximum: 11, description: 'Column, 0-11 (a 12-column grid).' }),
  y: Type.Integer({ minimum: 0, maximum: 1000, description: 'Row, from 0 at the top.' }),
  w: Type.Integer({ minimum: 1, maximum: 12, description: 'Width in columns; x + w <= 12.' }),
  h: Type.Integer({ minimum: 1, maximum: 100, description: 'Height in rows.' }),
});

export const TileTargetSchema = Shape({
  status: Enum(['active', 'archived', 'missing'] as const, {
    description: 'active; archived (the object was archived since: shown, not broken); missing.',
  }),
  name: Nullable(Type.String({ examples: ['Pipeline by stage'] })),
  metric_status: Type.Optional(Enum(['draft', 'approved', 'deprecated'] as const)),
});

export const BiDashboardSchema = Resource('BiDashboard', {
  id: RecordId('bidash'),
  name: Text('Sales overview'),
  description: NullableText('Pipeline, win rate and signups.'),
  tiles: Type.Array(
    Shape({
      title: Text('Pipeline by stage'),
      ref: TileRefSchema,
      position: TilePositionSchema,
      target: TileTargetSchema,
    }),
  ),
  created_by: Nullable(Type.String()),
  ...timestamps,
  archived_at: NullableTimestamp('Set when archived (archive_bi_object).'),
});

export const INSIGHT_SOURCE_TYPES = ['object_analytics', 'bi_template', 'bi_dataset'] as const;

const { dimensions: _d, measures: _m, dataset_key: _k, ...queryRest } = queryDefinitionFields;

/** A BI source's query: a query definition less its dataset, dimensions and measures (the view's own). */
export const InsightQuerySchema = Strict(queryRest, {
  description: 'filters, time_range, time_grain, timezone, time_column, sort and limit of the query.',
});

/** One schema for both source kinds; insight-view-source.ts checks that only its type's fields are sent. */
export const InsightSourceSchema = Strict(
  {
    type: Enum(INSIGHT_SOURCE_TYPES, {
      description:
        'object_analytics (an Object Analytics slice: Promote to BI), bi_template (a Custom BI template) ' +
        'or bi_dataset (a custom dataset of this workspace).',
    }),
    ...objectFilters,
    ...windowInputs,
    sort: Type.Optional(
      Enum(['events', 'last_seen'] as const, {
        description: 'object_analytics: the order (default events).',
      }),
    ),
    limit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 100, description: 'object_analytics: objects kept (default 25).' }),
    ),
    dataset_key: Type.Optional(DatasetKey),
    query: Type.Optional(InsightQuerySchema),
  },
  {
    description:
      'Where its rows come from. object_analytics: app, object_type, object_id, event_name, window or ' +
      'from/to, sort, limit. bi_template and bi_dataset: dataset_key and query.',
  },
);
export type InsightSource = Static<typeof InsightSourceSchema>;

export const InsightViewSchema = Resource('InsightView', {
  id: RecordId('biv'),
  name: Text('Orders touched this week'),
  question: NullableText('Which orders had the most activity in the last 7 days?'),
  source: InsightSourceSchema,
  report_style: VisualizationSchema,
  dimensions: Type.Array(Type.String({ examples: ['object_id'] })),
  measures: Type.Array(MeasureSchema),
  refresh_behaviour: Enum(['manual', 'scheduled'] as const, {
    description: 'scheduled when an active scheduled artifact refreshes it; manual otherwise.',
  }),
  created_by: Nullable(Type.String()),
  ...refreshStateFields,
  ...timestamps,
  archived_at: NullableTimestamp('Set when archived (archive_bi_object).'),
});
