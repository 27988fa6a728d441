import type { ModuleParts } from '../../../core/module.ts';
import * as biQueries from '../migrations/0016-bi-queries.ts';
import * as biSchedules from '../migrations/0021-bi-schedules.ts';
import { getBiRun, listBiRunsOperation } from './bi-runs.ts';
import type { BiTables } from './bi-tables.ts';
import { listBiTemplates } from './bi-templates.ts';
import { biDatasetRecord, createBiDataset, listBiDatasets, previewBiDataset } from './datasets.ts';
import { biMetricRecord, createBiMetric, listBiMetrics } from './metrics.ts';
import { biQueryRecord, listBiQueries, runBiQuery } from './queries.ts';
import { scheduleOperations, scheduleRecordTypes } from './scheduled-artifacts.ts';
import { scheduledRefreshJob, scheduleSweep } from './scheduler.ts';

// Custom BI (issue 12): governed templates and datasets, queries, metrics, reports, dashboards, exports,
// scheduled artifacts, BI runs and insight views. docs/modules/bi.md.
export const biParts: ModuleParts<BiTables> = {
  migrations: { '0016-bi-queries': biQueries, '0021-bi-schedules': biSchedules },
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
  ],
  recordTypes: [biQueryRecord, biDatasetRecord, biMetricRecord, ...scheduleRecordTypes],
  jobs: [scheduledRefreshJob],
  periodicTasks: [scheduleSweep],
};
