export interface TasksTable {
  workspace_id: string;
  id: string;
  title: string;
  description: string | null;
  status: 'open' | 'completed' | 'canceled';
  due_at: string | null;
  assignee_id: string | null;
  related_resource_type: string | null;
  related_resource_id: string | null;
  completed_note: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskTables {
  tasks: TasksTable;
}
