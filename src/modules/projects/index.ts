import type { ModuleDefinition } from '../../core/module.ts';
import { boardRecord, createBoard, listBoardsOperation, updateBoard } from './boards.ts';
import { columnRecord, createColumn, listColumnsOperation, updateColumn } from './columns.ts';
import {
  ProjectBoardColumnSchema,
  ProjectBoardSchema,
  ProjectSchema,
  ProjectTaskMoveSchema,
  ProjectTaskSchema,
} from './project-schemas.ts';
import { projectCounts } from './project-summary-store.ts';
import type { ProjectTables } from './project-tables.ts';
import { createProjectTask, listProjectTasksOperation, projectTaskRecord } from './project-tasks.ts';
import { createProject, listProjectsOperation, projectRecord, updateProject } from './projects.ts';
import { updateProjectTask } from './task-moves.ts';

const identity = { name: 'projects', scopes: ['projects:read', 'projects:write'] } as const;

export const projectsModule: ModuleDefinition<typeof identity, ProjectTables> = {
  ...identity,
  operations: [
    listProjectsOperation,
    createProject,
    updateProject,
    listBoardsOperation,
    createBoard,
    updateBoard,
    listColumnsOperation,
    createColumn,
    updateColumn,
    listProjectTasksOperation,
    createProjectTask,
    updateProjectTask,
  ],
  recordTypes: [projectRecord, boardRecord, columnRecord, projectTaskRecord],
  events: [
    {
      name: 'project.created',
      description: 'A project was created; data is the project.',
      schema: ProjectSchema,
    },
    {
      name: 'project.updated',
      description: 'A project changed without a status change; data is the project.',
      schema: ProjectSchema,
    },
    {
      name: 'project.status_changed',
      description: 'A project changed status (and maybe more); data is the project.',
      schema: ProjectSchema,
    },
    {
      name: 'project_board.created',
      description: 'A board was created; data is the board.',
      schema: ProjectBoardSchema,
    },
    {
      name: 'project_board.updated',
      description: 'A board was renamed or re-described; data is the board.',
      schema: ProjectBoardSchema,
    },
    {
      name: 'project_board_column.created',
      description: 'A board column was created; data is the column.',
      schema: ProjectBoardColumnSchema,
    },
    {
      name: 'project_board_column.updated',
      description: 'A board column changed or moved; data is the column.',
      schema: ProjectBoardColumnSchema,
    },
    {
      name: 'project_task.created',
      description: 'A project task was created with its human key; data is the task.',
      schema: ProjectTaskSchema,
    },
    {
      name: 'project_task.updated',
      description: "A project task's fields (not its placement) changed; data is the task.",
      schema: ProjectTaskSchema,
    },
    {
      name: 'project_task.moved',
      description:
        'A project task changed board, column or position; data is the task plus moved_from (its previous ' +
        'board_id, column_id and position). Other tasks of the columns shift without events of their own.',
      schema: ProjectTaskMoveSchema,
    },
  ],
  summary: [
    {
      module: 'projects',
      scope: 'projects:read',
      key: 'projects',
      compute: (db, workspaceId, now) => projectCounts(db, workspaceId, now),
    },
  ],
};
