import type { ModuleDefinition, SummarySection } from '../../core/module.ts';
import {
  retentionJob,
  retentionSweep,
  sqliteOptimizeJob,
  sqliteOptimizeSweep,
} from '../../core/retention-job.ts';
import { getCurrentCredential } from './me.ts';
import { getRequest } from './requests.ts';
import { workspaceSummaryOperation } from './summary.ts';

/** The platform's own module: the summary, request lookups, and the platform tables' maintenance jobs. */
export function workspaceModule(sections: SummarySection[]): ModuleDefinition {
  return {
    name: 'workspace',
    operations: [workspaceSummaryOperation(sections), getRequest, getCurrentCredential],
    jobs: [retentionJob, sqliteOptimizeJob],
    periodicTasks: [retentionSweep, sqliteOptimizeSweep],
  };
}
