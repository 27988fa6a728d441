import type { Kysely } from 'kysely';
import { counterSum } from '../../core/record-counters.ts';
import type { DB } from '../../db/tables.ts';
import { OPEN_TASK_STATUSES } from './project-store.ts';

/**
 * Active projects and their open tasks for get_workspace_summary from the record counters, in one query.
 * Overdue depends on the time, so it is counted: per active project, the index range of its open tasks due
 * before now (project_tasks_status), so the cost follows the overdue tasks, not the table.
 */
export async function projectCounts(db: Kysely<DB>, workspaceId: string, now: string) {
  const row = await db
    .selectNoFrom((eb) => [
      counterSum(eb, workspaceId, 'projects', ['active']).as('active_projects'),
      counterSum(eb, workspaceId, 'active_project_tasks', OPEN_TASK_STATUSES).as('open_tasks'),
      eb
        .selectFrom('project_tasks')
        .select((e) => e.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('status', 'in', OPEN_TASK_STATUSES)
        .where('project_id', 'in', (e) =>
          e
            .selectFrom('projects')
            .select('id')
            .where('workspace_id', '=', workspaceId)
            .where('status', '=', 'active'),
        )
        .where('due_at', '<', now)
        .as('overdue_tasks'),
    ])
    .executeTakeFirstOrThrow();
  return {
    active_projects: Number(row.active_projects),
    open_tasks: Number(row.open_tasks),
    overdue_tasks: Number(row.overdue_tasks),
  };
}
