import type { RowOf } from '../../core/define-record.ts';
import type { activityRecord } from './activity-records.ts';

export interface ActivityTables {
  activities: RowOf<typeof activityRecord>;
}
