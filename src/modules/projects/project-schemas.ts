// The projects resources as the API returns them, declared once: record types, responses, MCP
// outputSchema, OpenAPI components and the module's event schemas.
import { type Static, Type } from '@sinclair/typebox';
import {
  DateOnly,
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../core/resource-schema.ts';
import { TASK_STATUSES } from './task-schema.ts';

export const ProjectSchema = Resource('Project', {
  id: RecordId('prj'),
  key: Text('WEB', 'Short upper-case key; task keys are <key>-<number>.'),
  name: Text('Website relaunch'),
  description: NullableText('New site with the spring collection.'),
  status: Enum(['planned', 'active', 'on_hold', 'completed', 'archived'] as const),
  owner_id: NullableText('usr_ada'),
  start_date: Nullable(DateOnly()),
  target_date: Nullable(DateOnly()),
  ...timestamps,
});
export type Project = Static<typeof ProjectSchema>;

export const ProjectBoardSchema = Resource('ProjectBoard', {
  id: RecordId('pbd'),
  project_id: RecordId('prj'),
  name: Text('Sprint board'),
  description: NullableText('Two-week sprints.'),
  ...timestamps,
});
export type ProjectBoard = Static<typeof ProjectBoardSchema>;

export const ProjectBoardColumnSchema = Resource('ProjectBoardColumn', {
  id: RecordId('pbc'),
  project_id: RecordId('prj'),
  board_id: RecordId('pbd'),
  name: Text('In progress'),
  position: Type.Integer({ examples: [1] }),
  wip_limit: Nullable(Type.Integer({ examples: [5] })),
  task_status: Nullable(Enum(TASK_STATUSES), { description: 'The status a task takes when moved here.' }),
  task_count: Type.Integer({ examples: [3] }),
  over_wip_limit: Type.Boolean(),
  ...timestamps,
});
export type ProjectBoardColumn = Static<typeof ProjectBoardColumnSchema>;

const taskProperties = {
  id: RecordId('ptk'),
  key: Text('WEB-42'),
  number: Type.Integer({ examples: [42] }),
  project_id: RecordId('prj'),
  board_id: Nullable(RecordId('pbd')),
  column_id: Nullable(RecordId('pbc')),
  position: Nullable(Type.Integer({ examples: [0] })),
  title: Text('Design the product page'),
  description: NullableText('Hero image, size guide, reviews.'),
  status: Enum(TASK_STATUSES),
  priority: Enum(['none', 'low', 'medium', 'high', 'urgent'] as const),
  estimate: Nullable(Type.Integer({ examples: [3] })),
  labels: Type.Array(Type.String(), { examples: [['design', 'web']] }),
  assignee_id: NullableText('usr_ada'),
  due_at: NullableTimestamp(),
  completed_at: NullableTimestamp(),
  ...timestamps,
};
export const ProjectTaskSchema = Resource('ProjectTask', taskProperties);
export type ProjectTask = Static<typeof ProjectTaskSchema>;

/** project_task.moved's data: the task and where it was before. */
export const ProjectTaskMoveSchema = Resource('ProjectTaskMove', {
  ...taskProperties,
  moved_from: Shape({
    board_id: Nullable(RecordId('pbd')),
    column_id: Nullable(RecordId('pbc')),
    position: Nullable(Type.Integer()),
  }),
});
