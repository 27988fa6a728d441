export interface ActivitiesTable {
  workspace_id: string;
  id: string;
  type: 'note' | 'call' | 'email' | 'meeting' | 'agent_action';
  summary: string;
  body: string | null;
  related_resource_type: string | null;
  related_resource_id: string | null;
  occurred_at: string;
  actor_type: string;
  actor_credential_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ActivityTables {
  activities: ActivitiesTable;
}
