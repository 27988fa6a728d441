import type { ModuleParts } from '../../../core/module.ts';
import * as agentGridMigration from '../migrations/0018-data-agents-agent-grid.ts';
import { agentGridEvents } from './agent-grid-events.ts';
import type { AgentGridTables } from './agent-grid-tables.ts';
import {
  agentVersionRecord,
  createAgentDefinitionVersion,
  listAgentDefinitionVersions,
} from './agent-versions.ts';
import { agentRecord, createAgentDefinition, listAgentDefinitions, updateAgentDefinition } from './agents.ts';
import { assistantJob } from './assistant-loop.ts';
import { assistantRunOperations } from './assistant-runs.ts';
import { getWorkspaceAssistantSummary } from './assistant-summary.ts';
import { costEventRecord, createAgentGridCostEvent, listAgentGridCostEvents } from './cost-events.ts';
import { guideIndex } from './guide-index.ts';
import { createAgentMemory, listAgentMemories, memoryRecord, updateAgentMemory } from './memories.ts';
import { memoryEmbedJob } from './memory-embedder.ts';
import {
  createAgentMemoryEmbedding,
  embeddingRecord,
  listAgentMemoryEmbeddings,
  updateAgentMemoryEmbedding,
} from './memory-embeddings.ts';
import {
  createAgentGridRetrievalHit,
  listAgentGridRetrievalHits,
  retrievalHitRecord,
} from './retrieval-hits.ts';
import { createAgentGridRun, listAgentGridRuns, runRecord, updateAgentGridRun } from './runs.ts';
import { createServiceGuideSession } from './service-guide.ts';
import { createAgentSessionItem, listAgentSessionItems, sessionItemRecord } from './session-items.ts';
import { createAgentSession, listAgentSessions, sessionRecord, updateAgentSession } from './sessions.ts';
import { createAgentGridToolCall, listAgentGridToolCalls, toolCallRecord } from './tool-calls.ts';
import { discoveryIndexer, discoveryOperations, discoveryReindexJob } from './workflow-discovery.ts';
import {
  createAgentWorkflowVersion,
  listAgentWorkflowVersions,
  workflowVersionRecord,
} from './workflow-versions.ts';
import { createAgentWorkflow, listAgentWorkflows, updateAgentWorkflow, workflowRecord } from './workflows.ts';

// Agent Grid (issue 14): agent definitions and workflows with their versions, runs and their children,
// sessions, memories, workflow discovery, assistants and the service guide. docs/modules/agent-grid.md.
export const agentGridParts: ModuleParts<AgentGridTables> = {
  migrations: { '0018-data-agents-agent-grid': agentGridMigration },
  operations: [
    listAgentGridRuns,
    createAgentGridRun,
    updateAgentGridRun,
    listAgentGridToolCalls,
    createAgentGridToolCall,
    listAgentGridRetrievalHits,
    createAgentGridRetrievalHit,
    listAgentGridCostEvents,
    createAgentGridCostEvent,
    listAgentDefinitions,
    createAgentDefinition,
    updateAgentDefinition,
    listAgentDefinitionVersions,
    createAgentDefinitionVersion,
    listAgentWorkflows,
    createAgentWorkflow,
    updateAgentWorkflow,
    listAgentWorkflowVersions,
    createAgentWorkflowVersion,
    listAgentSessions,
    createAgentSession,
    updateAgentSession,
    listAgentSessionItems,
    createAgentSessionItem,
    listAgentMemories,
    createAgentMemory,
    updateAgentMemory,
    listAgentMemoryEmbeddings,
    createAgentMemoryEmbedding,
    updateAgentMemoryEmbedding,
    ...discoveryOperations,
    getWorkspaceAssistantSummary,
    ...assistantRunOperations,
    createServiceGuideSession,
  ],
  recordTypes: [
    agentRecord,
    agentVersionRecord,
    workflowRecord,
    workflowVersionRecord,
    runRecord,
    toolCallRecord,
    retrievalHitRecord,
    costEventRecord,
    sessionRecord,
    sessionItemRecord,
    memoryRecord,
    embeddingRecord,
  ],
  events: agentGridEvents,
  eventConsumers: [discoveryIndexer],
  jobs: [memoryEmbedJob, discoveryReindexJob, assistantJob],
  // The service guide's index is built in the background when a node starts; nothing waits for it.
  startup: async () => {
    void guideIndex().catch(() => {});
  },
};
