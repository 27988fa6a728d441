// An export as a schedule target: each occurrence writes a new file of the export from its saved query
// (as the schedule's owner), points the export at it and archives the previous file (export-job.ts).
import { produceExport } from './export-job.ts';
import type { ScheduleTarget } from './schedule-targets.ts';

export const exportScheduleTarget: ScheduleTarget = {
  recordType: 'bi_export',
  refresh: (work, exportId) => produceExport(work, exportId),
};
