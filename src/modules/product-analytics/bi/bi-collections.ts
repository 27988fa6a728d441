// The BI collections update_bi_object and archive_bi_object serve (PATCH/DELETE /v1/bi/{collection}/{id}):
// per collection, its record type, resource schema, the strict schema of what an update may change, and
// the functions that apply an update or an archive. A part that owns a collection registers one line here
// (exports: the exports part); a collection not registered is not in the operations' enum.
import type { TObject } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { BiDashboardSchema, BiReportSchema } from './bi-object-schemas.ts';
import { BiDatasetSchema, BiMetricSchema, BiQuerySchema } from './bi-schemas.ts';
import {
  archiveDataset,
  archiveMetric,
  archiveQuery,
  DatasetUpdate,
  MetricUpdate,
  QueryUpdate,
  updateDataset,
  updateMetric,
  updateQuery,
} from './core-object-changes.ts';
import { archiveDashboard, DashboardUpdate, updateDashboard } from './dashboards.ts';
import { BiExportSchema } from './export-schemas.ts';
import { archiveBiExport, BiExportUpdate, updateBiExport } from './exports.ts';
import { archiveReport, ReportUpdate, updateReport } from './reports.ts';
import { ScheduledArtifactSchema } from './schedule-schemas.ts';
import {
  archiveScheduledArtifact,
  ScheduledArtifactUpdate,
  updateScheduledArtifact,
} from './scheduled-artifacts.ts';

export type BiCollectionName =
  | 'dashboards'
  | 'datasets'
  | 'reports'
  | 'metrics'
  | 'queries'
  | 'exports'
  | 'scheduled-artifacts';

export interface BiCollection {
  /** The record type (audit target type, get_record). */
  recordType: string;
  /** The resource as the API returns it. */
  schema: TObject;
  /** What an update may change: strict, every field optional; a field it lacks is validation_failed. */
  update: TObject;
  /** Applies a validated patch to a live object (resource_not_found otherwise); answers the resource. */
  apply(ctx: OperationContext, id: string, patch: any): Promise<unknown>;
  /** Archives (idempotent: an archived object is answered unchanged). */
  archive(ctx: OperationContext, id: string): Promise<{ object: unknown; archived_at: string }>;
}

export const BI_COLLECTIONS: Partial<Record<BiCollectionName, BiCollection>> = {
  dashboards: {
    recordType: 'bi_dashboard',
    schema: BiDashboardSchema,
    update: DashboardUpdate,
    apply: updateDashboard,
    archive: archiveDashboard,
  },
  datasets: {
    recordType: 'bi_dataset',
    schema: BiDatasetSchema,
    update: DatasetUpdate,
    apply: updateDataset,
    archive: archiveDataset,
  },
  reports: {
    recordType: 'bi_report',
    schema: BiReportSchema,
    update: ReportUpdate,
    apply: updateReport,
    archive: archiveReport,
  },
  metrics: {
    recordType: 'bi_metric',
    schema: BiMetricSchema,
    update: MetricUpdate,
    apply: updateMetric,
    archive: archiveMetric,
  },
  queries: {
    recordType: 'bi_query',
    schema: BiQuerySchema,
    update: QueryUpdate,
    apply: updateQuery,
    archive: archiveQuery,
  },
  exports: {
    recordType: 'bi_export',
    schema: BiExportSchema,
    update: BiExportUpdate,
    apply: async (ctx, id, patch) => (await updateBiExport(ctx, id, patch)).export,
    archive: async (ctx, id) => {
      const archived = await archiveBiExport(ctx, id);
      return { object: archived, archived_at: archived.archived_at! };
    },
  },
  'scheduled-artifacts': {
    recordType: 'bi_scheduled_artifact',
    schema: ScheduledArtifactSchema,
    update: ScheduledArtifactUpdate,
    apply: async (ctx, id, patch) => (await updateScheduledArtifact(ctx, id, patch)).scheduled_artifact,
    archive: async (ctx, id) => {
      const scheduled = await archiveScheduledArtifact(ctx, id);
      return { object: scheduled, archived_at: scheduled.archived_at! };
    },
  },
};
