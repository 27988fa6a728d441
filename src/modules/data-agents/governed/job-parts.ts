// Execution planes, execution jobs and lineage edges (issue 13 items 1, 3, 4), as one piece of the governed
// part: governed/index.ts spreads these lists into governedParts.
import {
  createExecutionJob,
  executionJobRecord,
  getExecutionJobDetails,
  listExecutionJobs,
} from './execution-jobs.ts';
import {
  createExecutionPlane,
  executionPlaneRecord,
  listExecutionPlanes,
  updateExecutionPlane,
} from './execution-planes.ts';
import { dispatchExecutionJob, reviewExecutionJob } from './job-dispatch.ts';
import { jobEvents } from './job-events.ts';
import { executionLeaseSweep } from './job-leases.ts';
import { executionJobRunner } from './job-runners.ts';
import { updateExecutionJob } from './job-updates.ts';
import { createLineageEdge, lineageEdgeRecord, listLineageEdges } from './lineage-edges.ts';

export const jobParts = {
  operations: [
    listExecutionPlanes,
    createExecutionPlane,
    updateExecutionPlane,
    listExecutionJobs,
    getExecutionJobDetails,
    createExecutionJob,
    updateExecutionJob,
    dispatchExecutionJob,
    reviewExecutionJob,
    listLineageEdges,
    createLineageEdge,
  ],
  recordTypes: [executionPlaneRecord, executionJobRecord, lineageEdgeRecord],
  events: jobEvents,
  jobs: [executionJobRunner],
  periodicTasks: [executionLeaseSweep],
};
