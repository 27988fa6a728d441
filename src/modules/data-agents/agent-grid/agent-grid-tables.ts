// Row types of this part's tables (merged into DB through the data_agents module). JSON columns are text.

export type AgentStatus = 'active' | 'archived';

export interface AgentDefinitionsTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  description: string | null;
  instructions: string;
  model: string | null;
  /** JSON array of registry tool names. */
  tools: string;
  metadata: string;
  status: AgentStatus;
  /** Highest version number snapshotted (0: none); bumped by create_agent_definition_version. */
  latest_version: number;
  created_at: string;
  updated_at: string;
}

export interface AgentDefinitionVersionsTable {
  workspace_id: string;
  id: string;
  agent_id: string;
  version: number;
  key: string;
  name: string;
  description: string | null;
  instructions: string;
  model: string | null;
  tools: string;
  changelog: string | null;
  created_at: string;
  updated_at: string;
}

export type TriggerType = 'manual' | 'event' | 'schedule';

export interface AgentWorkflowsTable {
  workspace_id: string;
  id: string;
  key: string;
  name: string;
  description: string | null;
  trigger_type: TriggerType;
  /** JSON object: the trigger with its configuration (workflow-steps.ts). */
  trigger: string;
  /** JSON array of steps (workflow-steps.ts). */
  steps: string;
  status: AgentStatus;
  latest_version: number;
  created_at: string;
  updated_at: string;
}

export interface AgentWorkflowVersionsTable {
  workspace_id: string;
  id: string;
  workflow_id: string;
  version: number;
  key: string;
  name: string;
  description: string | null;
  trigger: string;
  steps: string;
  changelog: string | null;
  created_at: string;
  updated_at: string;
}

export type RunStatus = 'queued' | 'running' | 'completed' | 'failed' | 'canceled';

export interface AgentGridRunsTable {
  workspace_id: string;
  id: string;
  agent_id: string | null;
  agent_version_id: string | null;
  workflow_id: string | null;
  workflow_version_id: string | null;
  session_id: string | null;
  parent_run_id: string | null;
  status: RunStatus;
  input: string;
  output: string | null;
  error_code: string | null;
  error_message: string | null;
  metadata: string;
  tool_calls: number;
  retrieval_hits: number;
  cost_events: number;
  tokens_in: number;
  tokens_out: number;
  cost_micros: number;
  currency: string;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export type ToolCallStatus = 'completed' | 'failed';

export interface AgentGridToolCallsTable {
  workspace_id: string;
  id: string;
  run_id: string;
  tool: string;
  /** 1 when tool names an operation of this service's registry. */
  registry_tool: number;
  arguments: string;
  status: ToolCallStatus;
  error_code: string | null;
  duration_ms: number | null;
  result_summary: string | null;
  request_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentGridRetrievalHitsTable {
  workspace_id: string;
  id: string;
  run_id: string;
  collection_key: string;
  document_id: string;
  score: number;
  rank: number | null;
  query: string | null;
  created_at: string;
  updated_at: string;
}

export type CostKind = 'llm_tokens' | 'embedding' | 'tool' | 'compute';

export interface AgentGridCostEventsTable {
  workspace_id: string;
  id: string;
  run_id: string;
  kind: CostKind;
  model: string | null;
  tool_call_id: string | null;
  tokens_in: number;
  tokens_out: number;
  units: number;
  cost_micros: number;
  currency: string;
  created_at: string;
  updated_at: string;
}

export type SessionStatus = 'open' | 'closed';

export interface AgentSessionsTable {
  workspace_id: string;
  id: string;
  agent_id: string | null;
  user_id: string | null;
  title: string | null;
  status: SessionStatus;
  metadata: string;
  /** The sequence number of the last item (0: none); bumped by create_agent_session_item. */
  item_count: number;
  last_item_at: string | null;
  created_at: string;
  updated_at: string;
}

export type SessionItemRole = 'user' | 'assistant' | 'tool' | 'system';

export interface AgentSessionItemsTable {
  workspace_id: string;
  id: string;
  session_id: string;
  sequence: number;
  role: SessionItemRole;
  content: string;
  run_id: string | null;
  tool_call_id: string | null;
  metadata: string;
  created_at: string;
  updated_at: string;
}

export type MemoryScope = 'workspace' | 'agent' | 'session' | 'user';

export interface AgentMemoriesTable {
  workspace_id: string;
  id: string;
  scope: MemoryScope;
  /** '' for the workspace scope, so (scope, scope_id) is one index key. */
  scope_id: string;
  content: string;
  /** SHA-256 of content: an embedding made from other content is stale. */
  content_sha256: string;
  importance: number;
  expires_at: string | null;
  status: AgentStatus;
  metadata: string;
  created_at: string;
  updated_at: string;
}

export type EmbeddingStatus = 'pending' | 'ready' | 'stale' | 'failed' | 'archived';

export interface AgentMemoryEmbeddingsTable {
  workspace_id: string;
  id: string;
  memory_id: string;
  collection_key: string;
  model: string | null;
  dimension: number;
  /** float32 little-endian, dimension * 4 bytes; null while pending. */
  vector: Buffer | null;
  /** The memory's content_sha256 the vector was made from. */
  content_sha256: string | null;
  status: EmbeddingStatus;
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

export interface AgentGridTables {
  agent_definitions: AgentDefinitionsTable;
  agent_definition_versions: AgentDefinitionVersionsTable;
  agent_workflows: AgentWorkflowsTable;
  agent_workflow_versions: AgentWorkflowVersionsTable;
  agent_grid_runs: AgentGridRunsTable;
  agent_grid_tool_calls: AgentGridToolCallsTable;
  agent_grid_retrieval_hits: AgentGridRetrievalHitsTable;
  agent_grid_cost_events: AgentGridCostEventsTable;
  agent_sessions: AgentSessionsTable;
  agent_session_items: AgentSessionItemsTable;
  agent_memories: AgentMemoriesTable;
  agent_memory_embeddings: AgentMemoryEmbeddingsTable;
}
