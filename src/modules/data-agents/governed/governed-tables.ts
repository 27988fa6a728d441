// Row types of this part's tables (merged into DB through the data_agents module).
import type { JobTables } from './job-tables.ts';

export interface GovernedTables extends JobTables {
  data_agent_decisions: DataAgentDecisionsTable;
  data_agent_insights: DataAgentInsightsTable;
  data_agent_recommendations: DataAgentRecommendationsTable;
  data_agent_source_objects: DataAgentSourceObjectsTable;
  data_agent_knowledge_artifacts: DataAgentKnowledgeArtifactsTable;
  data_agent_dataset_versions: DataAgentDatasetVersionsTable;
  data_agent_dataset_manifests: DataAgentDatasetManifestsTable;
}

// Decisions, insights, recommendations, source objects, knowledge artifacts (0020-data-agents-records).
// JSON columns hold text.

export interface DataAgentDecisionsTable {
  workspace_id: string;
  id: string;
  title: string;
  context: string;
  /** JSON array of {key, description}. */
  options: string;
  chosen_option: string | null;
  rationale: string | null;
  subject_type: string | null;
  subject_id: string | null;
  /** JSON array of {type, id}. */
  related_objects: string;
  supersedes_id: string | null;
  superseded_by_id: string | null;
  status: string;
  decision_note: string | null;
  decided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentInsightsTable {
  workspace_id: string;
  id: string;
  title: string;
  summary: string;
  /** JSON array of {label, value, unit, source: {type, id}}. */
  figures: string;
  status: string;
  published_at: string | null;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentRecommendationsTable {
  workspace_id: string;
  id: string;
  title: string;
  rationale: string;
  /** JSON array of {type, id}. */
  evidence: string;
  action_tool: string;
  /** JSON object: the action tool's input. */
  action_arguments: string;
  status: string;
  decision_note: string | null;
  decided_at: string | null;
  /** The execute_data_agent_recommendation call that claimed it. */
  execute_request_id: string | null;
  /** The action call's request ID, minted when claimed. */
  execution_request_id: string | null;
  execution_started_at: string | null;
  execution_status: number | null;
  /** JSON: the action's body, or its error envelope. */
  execution_result: string | null;
  executed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentSourceObjectsTable {
  workspace_id: string;
  id: string;
  kind: string;
  name: string;
  record_type: string | null;
  record_id: string | null;
  dataset_key: string | null;
  app: string | null;
  object_type: string | null;
  uri: string | null;
  description: string | null;
  owner: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentKnowledgeArtifactsTable {
  workspace_id: string;
  id: string;
  title: string;
  kind: string;
  content: string;
  /** JSON array of {type, id}. */
  source_refs: string;
  status: string;
  created_at: string;
  updated_at: string;
}

// Dataset versions and manifests (0025-data-agents-versions). JSON columns hold text.

export interface DataAgentDatasetVersionsTable {
  workspace_id: string;
  id: string;
  dataset_key: string;
  /** 1, 2, ... per dataset key (unique). */
  version: number;
  template_key: string;
  /** The custom dataset's ID; null for a template. */
  dataset_id: string | null;
  description: string | null;
  status: string;
  /** JSON array of the result columns {name, type, role}. */
  columns: string;
  row_count: number;
  /** sha256 (hex) of the canonical rows. */
  checksum: string;
  /** JSON: the query definition as run. */
  query: string;
  /** The execution job that took the snapshot, if one did. */
  job_id: string | null;
  /** The decision that approved the version. */
  decision_id: string | null;
  created_by: string | null;
  approved_at: string | null;
  deprecated_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface DataAgentDatasetManifestsTable {
  workspace_id: string;
  id: string;
  version_id: string;
  dataset_key: string;
  owner: string;
  description: string;
  /** JSON array of text. */
  tags: string;
  /** JSON object {max_age_hours, note} or null. */
  freshness: string | null;
  /** JSON array of {column, description}. */
  column_docs: string;
  /** JSON array of source object IDs. */
  source_object_ids: string;
  created_at: string;
  updated_at: string;
}
