// The domain events of the Agent Grid records; their data is the record as the API returns it.
import type { TSchema } from '@sinclair/typebox';
import type { DomainEventType } from '../../../core/module.ts';
import {
  AgentSchema,
  AgentVersionSchema,
  CostEventSchema,
  MemoryEmbeddingSchema,
  MemorySchema,
  RetrievalHitSchema,
  RunSchema,
  SessionItemSchema,
  SessionSchema,
  ToolCallSchema,
  WorkflowSchema,
  WorkflowVersionSchema,
} from './agent-grid-schemas.ts';

const created = (type: string, what: string, schema: TSchema): DomainEventType => ({
  name: `${type}.created`,
  description: `${what} was created; data is the record.`,
  schema,
});
const updated = (type: string, what: string, schema: TSchema): DomainEventType => ({
  name: `${type}.updated`,
  description: `${what} changed; data is the record after the change.`,
  schema,
});

export const agentGridEvents: DomainEventType[] = [
  created('agent_definition', 'An agent definition', AgentSchema),
  updated('agent_definition', 'An agent definition', AgentSchema),
  created('agent_definition_version', 'An agent definition version (a snapshot)', AgentVersionSchema),
  created('agent_workflow', 'An agent workflow', WorkflowSchema),
  updated('agent_workflow', 'An agent workflow', WorkflowSchema),
  created('agent_workflow_version', 'An agent workflow version (a snapshot)', WorkflowVersionSchema),
  created('agent_grid_run', 'An Agent Grid run', RunSchema),
  {
    name: 'agent_grid_run.updated',
    description:
      "An Agent Grid run's status, output or error changed (update_agent_grid_run, or its first child moving it " +
      'from queued to running); data is the run. Totals changing with a new child emit only the child event.',
    schema: RunSchema,
  },
  created('agent_grid_tool_call', 'A tool call of a run', ToolCallSchema),
  created('agent_grid_retrieval_hit', 'A retrieval hit of a run', RetrievalHitSchema),
  created('agent_grid_cost_event', 'A cost event of a run', CostEventSchema),
  created('agent_session', 'An agent session', SessionSchema),
  updated('agent_session', 'An agent session', SessionSchema),
  created('agent_session_item', 'A session item (a turn of the conversation)', SessionItemSchema),
  created('agent_memory', 'An agent memory', MemorySchema),
  updated('agent_memory', 'An agent memory', MemorySchema),
  created('agent_memory_embedding', 'A memory embedding', MemoryEmbeddingSchema),
  {
    name: 'agent_memory_embedding.updated',
    description:
      'A memory embedding changed (a new vector, a status, or stale because its memory content changed); ' +
      'data is the embedding without its vector.',
    schema: MemoryEmbeddingSchema,
  },
];
