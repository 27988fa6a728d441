export type ProjectStatus = 'planned' | 'active' | 'on_hold' | 'completed' | 'archived';
export type ProjectTaskStatus = 'backlog' | 'todo' | 'in_progress' | 'done' | 'canceled';
export type Priority = 'none' | 'low' | 'medium' | 'high' | 'urgent';

export interface ProjectsTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  description: string | null;
  status: ProjectStatus;
  owner_id: string | null;
  start_date: string | null;
  target_date: string | null;
  /** Last task number handed out; incremented inside the task create's transaction. */
  next_task_number: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectBoardsTable {
  workspace_id: string;
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectBoardColumnsTable {
  workspace_id: string;
  id: string;
  project_id: string;
  board_id: string;
  name: string;
  /** 0-based, gap-free within the board. */
  position: number;
  wip_limit: number | null;
  /** Status a task takes when it moves into this column; null leaves the status alone. */
  task_status: ProjectTaskStatus | null;
  /** Tasks in the column, kept with the positions (the row is also the column's lock). */
  task_count: number;
  created_at: string;
  updated_at: string;
}

export interface ProjectTasksTable {
  workspace_id: string;
  id: string;
  project_id: string;
  number: number;
  key: string;
  board_id: string | null;
  column_id: string | null;
  /** 0-based, gap-free within the column; null off the board. */
  position: number | null;
  title: string;
  description: string | null;
  status: ProjectTaskStatus;
  priority: Priority;
  estimate: number | null;
  /** JSON array of strings. */
  labels: string;
  assignee_id: string | null;
  due_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ProjectTables {
  projects: ProjectsTable;
  project_boards: ProjectBoardsTable;
  project_board_columns: ProjectBoardColumnsTable;
  project_tasks: ProjectTasksTable;
}
