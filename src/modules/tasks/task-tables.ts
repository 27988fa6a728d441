import type { RowOf } from '../../core/define-record.ts';
import type { taskRecord } from './task-records.ts';

export interface TaskTables {
  tasks: RowOf<typeof taskRecord>;
}
