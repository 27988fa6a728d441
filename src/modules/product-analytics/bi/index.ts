import type { ModuleParts } from '../../../core/module.ts';
import * as biQueries from '../migrations/0016-bi-queries.ts';
import * as biSchedules from '../migrations/0021-bi-schedules.ts';
import * as biObjects from '../migrations/0022-bi-objects.ts';
import * as biExports from '../migrations/0023-bi-exports.ts';
import * as biIndexes from '../migrations/0026-bi-indexes.ts';
import * as biCallEventDays from '../migrations/0027-bi-call-event-days.ts';
import { archiveBiObject, updateBiObject } from './bi-objects.ts';
import { getBiRun, listBiRunsOperation } from './bi-runs.ts';
import type { BiTables } from './bi-tables.ts';
import { listBiTemplates } from './bi-templates.ts';
import { callEventDaysJob, callEventDaysSweep } from './call-event-days-job.ts';
import { biDashboardRecord, createBiDashboard, listBiDashboards } from './dashboards.ts';
import { biDatasetRecord, createBiDataset, listBiDatasets, previewBiDataset } from './datasets.ts';
import { exportJob } from './export-job.ts';
import { exportOperations, exportRecordTypes } from './exports.ts';
import { insightViewOperations, insightViewRecord } from './insight-views.ts';
import { biMetricRecord, createBiMetric, listBiMetrics } from './metrics.ts';
import { biQueryRecord, listBiQueries, runBiQuery } from './queries.ts';
import { biReportRecord, createBiReport, listBiReports, refreshBiReport } from './reports.ts';
import { scheduleOperations, scheduleRecordTypes } from './scheduled-artifacts.ts';
import { scheduledRefreshJob, scheduleSweep } from './scheduler.ts';

// Custom BI (issue 12): governed templates and datasets, queries, metrics, reports, dashboards, exports,
// scheduled artifacts, BI runs and insight views. docs/modules/bi.md.
export const biParts: ModuleParts<BiTables> = {
  migrations: {
    '0016-bi-queries': biQueries,
    '0021-bi-schedules': biSchedules,
    '0022-bi-objects': biObjects,
    '0023-bi-exports': biExports,
    '0026-bi-indexes': biIndexes,
    '0027-bi-call-event-days': biCallEventDays,
  },
  operations: [
    listBiTemplates,
    runBiQuery,
    listBiQueries,
    listBiRunsOperation,
    getBiRun,
    createBiDataset,
    previewBiDataset,
    listBiDatasets,
    createBiMetric,
    listBiMetrics,
    ...scheduleOperations,
    createBiReport,
    listBiReports,
    refreshBiReport,
    createBiDashboard,
    listBiDashboards,
    updateBiObject,
    archiveBiObject,
    ...insightViewOperations,
    ...exportOperations,
  ],
  recordTypes: [
    biQueryRecord,
    biDatasetRecord,
    biMetricRecord,
    ...scheduleRecordTypes,
    ...exportRecordTypes,
    biReportRecord,
    biDashboardRecord,
    insightViewRecord,
  ],
  jobs: [exportJob, scheduledRefreshJob, callEventDaysJob],
  periodicTasks: [scheduleSweep, callEventDaysSweep],
};
