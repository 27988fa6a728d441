// The Agent Grid resources as the API returns them, declared once: record types, responses, OpenAPI
// components and the domain event schemas (agent-grid-events.ts) use these.
import { type Static, Type } from '@sinclair/typebox';
import {
  Currency,
  Enum,
  FieldValues,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../../core/resource-schema.ts';
import { MapOf } from '../../../core/schema.ts';

export const agentStatuses = ['active', 'archived'] as const;
export const triggerTypes = ['manual', 'event', 'schedule'] as const;
export const cadences = ['hourly', 'daily', 'weekly', 'monthly'] as const;
export const weekdays = [
  'monday',
  'tuesday',
  'wednesday',
  'thursday',
  'friday',
  'saturday',
  'sunday',
] as const;
export const runStatuses = ['queued', 'running', 'completed', 'failed', 'canceled'] as const;
export const toolCallStatuses = ['completed', 'failed'] as const;
export const costKinds = ['llm_tokens', 'embedding', 'tool', 'compute'] as const;
export const sessionStatuses = ['open', 'closed'] as const;
export const itemRoles = ['user', 'assistant', 'tool', 'system'] as const;
export const memoryScopes = ['workspace', 'agent', 'session', 'user'] as const;
export const embeddingStatuses = ['pending', 'ready', 'stale', 'failed', 'archived'] as const;

const metadata = FieldValues('Caller-defined scalar fields (trace IDs, environment ...).');
const json = (description: string, example: Record<string, unknown>) =>
  MapOf(Type.Unknown(), { description, examples: [example] });
const toolList = Type.Array(Type.String({ examples: ['search_contacts'] }), {
  description: 'Registry tools (tool names of this service) the agent may call.',
  examples: [['search_contacts', 'create_task']],
});

export const AgentSchema = Resource('AgentDefinition', {
  id: RecordId('agt'),
  key: Text('support_triage', 'Unique in the workspace; workflows invoke the agent by it.'),
  name: Text('Support triage'),
  description: NullableText('Sorts new tickets and drafts a first answer.'),
  instructions: Text('Read the ticket, search the contact, file a task when a human is needed.'),
  model: NullableText('gpt-4o-mini', 'The model name as the caller runs it; not called by this service.'),
  tools: toolList,
  metadata,
  status: Enum(agentStatuses),
  latest_version: Type.Integer({ examples: [2], description: 'Highest version snapshotted; 0 when none.' }),
  ...timestamps,
});
export type Agent = Static<typeof AgentSchema>;

export const AgentVersionSchema = Resource('AgentDefinitionVersion', {
  id: RecordId('agtv'),
  agent_id: RecordId('agt'),
  version: Type.Integer({ examples: [2], description: '1, 2, ... per agent.' }),
  key: Text('support_triage'),
  name: Text('Support triage'),
  description: NullableText('Sorts new tickets and drafts a first answer.'),
  instructions: Text('Read the ticket, search the contact, file a task when a human is needed.'),
  model: NullableText('gpt-4o-mini'),
  tools: toolList,
  changelog: NullableText('Can now create tasks.'),
  ...timestamps,
});
export type AgentVersion = Static<typeof AgentVersionSchema>;

export const TriggerSchema = Shape(
  {
    type: Enum(triggerTypes),
    event_type: NullableText('support_ticket.created', 'event: the domain event that starts it.'),
    cadence: Nullable(Enum(cadences)),
    time: NullableText('09:00', 'schedule (daily, weekly, monthly): UTC time of day, HH:MM.'),
    day_of_week: Nullable(Enum(weekdays)),
    day_of_month: Nullable(
      Type.Integer({ examples: [1], description: 'monthly: 1-31; a shorter month runs on its last day.' }),
    ),
  },
  { description: 'What starts the workflow: manual, a domain event, or a schedule.' },
);
export type Trigger = Static<typeof TriggerSchema>;

export const StepSchema = Shape({
  key: Text('find_contact', 'Unique in the workflow; later steps reference its output by it.'),
  kind: Enum(['tool', 'agent'] as const),
  tool: NullableText('search_contacts', 'kind tool: the registry tool called.'),
  agent_key: NullableText('support_triage', 'kind agent: the agent invoked.'),
  agent_version: Nullable(
    Type.Integer({ examples: [2], description: 'kind agent: a pinned version; null runs the latest.' }),
  ),
  arguments: json(
    'The tool input or the agent input; {"$from": "steps.<key>.output.<path>"} or ' +
      '{"$from": "input.<path>"} takes a value from an earlier step or the run input.',
    { query: { $from: 'input.email' } },
  ),
  description: NullableText('Find the contact who wrote in.'),
});
export type Step = Static<typeof StepSchema>;

const steps = Type.Array(StepSchema);

export const WorkflowSchema = Resource('AgentWorkflow', {
  id: RecordId('awf'),
  key: Text('ticket_followup'),
  name: Text('Ticket follow-up'),
  description: NullableText('Finds the contact of a new ticket and files a follow-up task.'),
  trigger: TriggerSchema,
  steps,
  status: Enum(agentStatuses),
  latest_version: Type.Integer({ examples: [1], description: 'Highest version snapshotted; 0 when none.' }),
  ...timestamps,
});
export type Workflow = Static<typeof WorkflowSchema>;

export const WorkflowVersionSchema = Resource('AgentWorkflowVersion', {
  id: RecordId('awfv'),
  workflow_id: RecordId('awf'),
  version: Type.Integer({ examples: [1], description: '1, 2, ... per workflow.' }),
  key: Text('ticket_followup'),
  name: Text('Ticket follow-up'),
  description: NullableText('Finds the contact of a new ticket and files a follow-up task.'),
  trigger: TriggerSchema,
  steps,
  changelog: NullableText('First version.'),
  ...timestamps,
});
export type WorkflowVersion = Static<typeof WorkflowVersionSchema>;

const count = (example: number, description: string) => Type.Integer({ examples: [example], description });

export const RunSchema = Resource('AgentGridRun', {
  id: RecordId('arun'),
  agent_id: Nullable(RecordId('agt')),
  agent_version_id: Nullable(RecordId('agtv'), { description: 'The agent version it ran (or null).' }),
  workflow_id: Nullable(RecordId('awf')),
  workflow_version_id: Nullable(RecordId('awfv'), { description: 'The workflow version it ran (or null).' }),
  session_id: Nullable(RecordId('ases')),
  parent_run_id: Nullable(RecordId('arun'), { description: 'The run that started this one (a workflow).' }),
  status: Enum(runStatuses),
  input: json('What the run was asked.', { ticket_id: 'tkt_01JDB3Y5Q0ZK8X4M2N7P9R6T3V' }),
  output: Nullable(json('What it produced.', { task_id: 'tsk_01JDB3Y5Q0ZK8X4M2N7P9R6T3V' })),
  error: Nullable(Shape({ code: Text('tool_failed'), message: Text('create_task answered 403.') })),
  metadata,
  totals: Shape(
    {
      tool_calls: count(3, 'Tool calls recorded.'),
      retrieval_hits: count(5, 'Retrieval hits recorded.'),
      cost_events: count(2, 'Cost events recorded.'),
      tokens_in: count(1200, 'Sum of the cost events.'),
      tokens_out: count(350, 'Sum of the cost events.'),
      cost_micros: count(4200, 'Sum of the cost events, in millionths of the currency unit.'),
      currency: Currency,
    },
    { description: 'Kept equal to the sums over its children, recomputed with each child.' },
  ),
  started_at: NullableTimestamp('When it left queued.'),
  finished_at: NullableTimestamp(),
  duration_ms: Nullable(Type.Integer({ examples: [5400] })),
  ...timestamps,
});
export type Run = Static<typeof RunSchema>;

export const ToolCallSchema = Resource('AgentGridToolCall', {
  id: RecordId('atc'),
  run_id: RecordId('arun'),
  tool: Text('search_contacts'),
  registry_tool: Type.Boolean({ description: 'Whether tool is a tool of this service.' }),
  arguments: json('The arguments sent.', { query: 'ada@example.com' }),
  status: Enum(toolCallStatuses),
  error_code: NullableText('missing_required_scope'),
  duration_ms: Nullable(Type.Integer({ examples: [84] })),
  result_summary: NullableText('1 contact found: Ada Lovelace.'),
  request_id: NullableText(
    'req_01JDB3Y5Q0ZK8X4M2N7P9R6T3V',
    'The request of the registry call: GET /v1/requests/{request_id} shows its audit events.',
  ),
  ...timestamps,
});
export type ToolCall = Static<typeof ToolCallSchema>;

export const RetrievalHitSchema = Resource('AgentGridRetrievalHit', {
  id: RecordId('arh'),
  run_id: RecordId('arun'),
  collection_key: Text('help_articles'),
  document_id: Text('article-42'),
  score: Type.Number({ examples: [0.82] }),
  rank: Nullable(Type.Integer({ examples: [1], description: '1 = best.' })),
  query: NullableText('reset password'),
  ...timestamps,
});
export type RetrievalHit = Static<typeof RetrievalHitSchema>;

export const CostEventSchema = Resource('AgentGridCostEvent', {
  id: RecordId('acost'),
  run_id: RecordId('arun'),
  kind: Enum(costKinds),
  model: NullableText('gpt-4o-mini'),
  tool_call_id: Nullable(RecordId('atc')),
  tokens_in: Type.Integer({ examples: [1200] }),
  tokens_out: Type.Integer({ examples: [350] }),
  units: Type.Number({ examples: [1], description: 'Other metered units (compute seconds, calls).' }),
  cost_micros: Type.Integer({ examples: [4200], description: 'Millionths of the currency unit.' }),
  currency: Currency,
  ...timestamps,
});
export type CostEvent = Static<typeof CostEventSchema>;

export const SessionSchema = Resource('AgentSession', {
  id: RecordId('ases'),
  agent_id: Nullable(RecordId('agt')),
  user_id: NullableText('user-381', 'The end user of the conversation, as the caller names them.'),
  title: NullableText('Password reset help'),
  status: Enum(sessionStatuses),
  metadata,
  item_count: count(4, 'Items so far; the last item has this sequence.'),
  last_item_at: NullableTimestamp(),
  ...timestamps,
});
export type Session = Static<typeof SessionSchema>;

export const SessionItemSchema = Resource('AgentSessionItem', {
  id: RecordId('asi'),
  session_id: RecordId('ases'),
  sequence: count(1, '1, 2, ... in the session: the conversation order.'),
  role: Enum(itemRoles),
  content: Text('How do I reset my password?'),
  run_id: Nullable(RecordId('arun')),
  tool_call_id: Nullable(RecordId('atc')),
  metadata,
  ...timestamps,
});
export type SessionItem = Static<typeof SessionItemSchema>;

export const MemorySchema = Resource('AgentMemory', {
  id: RecordId('amem'),
  scope: Enum(memoryScopes),
  scope_id: NullableText('agt_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The agent, session or user; null for workspace.'),
  content: Text('Ada prefers answers by email.'),
  importance: Type.Number({ examples: [0.7], description: '0 to 1.' }),
  expires_at: NullableTimestamp(),
  status: Enum(agentStatuses),
  metadata,
  ...timestamps,
});
export type Memory = Static<typeof MemorySchema>;

export const MemoryEmbeddingSchema = Resource('AgentMemoryEmbedding', {
  id: RecordId('aemb'),
  memory_id: RecordId('amem'),
  collection_key: Text('agent_memories'),
  model: NullableText('text-embedding-3-small'),
  dimension: Type.Integer({ examples: [3] }),
  vector: Nullable(Type.Array(Type.Number(), { examples: [[0.5, -0.25, 0.125]] }), {
    description: 'float32 values; null while pending, or in lists without include_vectors.',
  }),
  status: Enum(embeddingStatuses, {
    description: 'stale: the memory content changed after this vector was made.',
  }),
  error_message: NullableText('The embeddings endpoint timed out.'),
  ...timestamps,
});
export type MemoryEmbedding = Static<typeof MemoryEmbeddingSchema>;
