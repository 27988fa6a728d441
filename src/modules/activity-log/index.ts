import type { ModuleDefinition } from '../../core/module.ts';
import { logActivity, searchActivityOperation } from './activities.ts';
import { activityRecord } from './activity-records.ts';
import { activityCounts } from './activity-summary-store.ts';
import type { ActivityTables } from './activity-tables.ts';
import { getRecordHistory } from './history.ts';

const identity = { name: 'activity_log', scopes: ['activity:read', 'activity:write'] } as const;

export const activityLogModule: ModuleDefinition<typeof identity, ActivityTables> = {
  ...identity,
  operations: [logActivity, searchActivityOperation, getRecordHistory],
  recordTypes: [activityRecord],
  events: [{ name: 'activity.logged', description: 'An activity was logged; data is the activity.' }],
  summary: [
    {
      module: 'activity_log',
      scope: 'activity:read',
      key: 'activity',
      compute: (db, id) => activityCounts(db, id),
    },
  ],
};
