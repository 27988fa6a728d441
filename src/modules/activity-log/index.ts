import type { ModuleDefinition } from '../../core/module.ts';
import { activityRecord, logActivity, searchActivityOperation } from './activities.ts';
import { activityCounts } from './activity-store.ts';
import { getRecordHistory } from './history.ts';

export const activityLogModule: ModuleDefinition = {
  name: 'activity_log',
  operations: [logActivity, searchActivityOperation, getRecordHistory],
  recordTypes: [activityRecord],
  events: [{ name: 'activity.logged', description: 'An activity was logged; data is the activity.' }],
  summary: [
    { module: 'activity_log', scope: 'activity:read', key: 'activity', compute: (db, id) => activityCounts(db, id) },
  ],
};
