// The resources of decisions, insights, recommendations, source objects and knowledge artifacts, declared
// once: responses, MCP outputSchema, OpenAPI and the domain events' data reuse them.
import { Type } from '@sinclair/typebox';
import {
  AnyJson,
  Enum,
  Nullable,
  NullableText,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  timestamps,
} from '../../../core/resource-schema.ts';

export const ObjectRefSchema = Shape(
  {
    type: Text('contact', 'A record type, as get_record names it (contact, data_agent_insight, ...).'),
    id: RecordId('con'),
  },
  { description: 'A typed reference to a record of this workspace.' },
);

export const DECISION_STATUSES = ['proposed', 'approved', 'rejected', 'superseded'] as const;
export type DecisionStatus = (typeof DECISION_STATUSES)[number];

export const DecisionOptionSchema = Shape({
  key: Text('weekly', 'Short identifier of the option, unique within the decision.'),
  description: Text('Refresh the dataset weekly.'),
});

export const DecisionSchema = Resource('DataAgentDecision', {
  id: RecordId('dad'),
  title: Text('Approve the content performance dataset v3'),
  context: Text('The weekly content review needs a governed source.'),
  options: Type.Array(DecisionOptionSchema, { description: 'The options considered.' }),
  chosen_option: NullableText('weekly', 'Key of the chosen option.'),
  rationale: NullableText('Fresh enough for the weekly review at a tenth of the cost.'),
  subject: Nullable(ObjectRefSchema, {
    description: 'What the decision is about; approving it applies the effect registered for its type.',
  }),
  related_objects: Type.Array(ObjectRefSchema),
  supersedes_id: NullableText('dad_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The earlier decision this one replaces.'),
  superseded_by_id: NullableText('dad_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The later decision that replaced it.'),
  status: Enum(DECISION_STATUSES),
  decision_note: NullableText('Approved in the data council.', 'Note given when approved or rejected.'),
  decided_at: NullableTimestamp('When it was approved or rejected.'),
  ...timestamps,
});

export const INSIGHT_STATUSES = ['draft', 'published', 'archived'] as const;

export const FigureSchema = Shape({
  label: Text('Published posts'),
  value: Type.Number({ examples: [42] }),
  unit: NullableText('posts'),
  source: ObjectRefSchema,
});

export const InsightSchema = Resource('DataAgentInsight', {
  id: RecordId('dai'),
  title: Text('Video posts outperform text posts'),
  summary: Text('Video posts drew twice the engagement of text posts last month.'),
  figures: Type.Array(FigureSchema),
  status: Enum(INSIGHT_STATUSES),
  published_at: NullableTimestamp(),
  archived_at: NullableTimestamp(),
  ...timestamps,
});

export const RECOMMENDATION_STATUSES = [
  'proposed',
  'approved',
  'rejected',
  'executing',
  'executed',
  'failed',
] as const;
export type RecommendationStatus = (typeof RECOMMENDATION_STATUSES)[number];

export const ExecutionSchema = Shape(
  {
    request_id: Text(
      'req_01JDB3Y5Q0ZK8X4M2N7P9R6T3V',
      'The request ID of the action call (its audit events carry it), minted before the call runs.',
    ),
    execute_request_id: Text(
      'req_01JDB3Y5Q0ZK8X4M2N7P9R6T3W',
      'The execute_data_agent_recommendation call that ran the action.',
    ),
    status: Nullable(Type.Integer({ examples: [201] }), {
      description: 'HTTP status of the action call; null while it runs.',
    }),
    result: AnyJson("The action call's body, or its error envelope ({error}) when it failed."),
    started_at: NullableTimestamp(),
    finished_at: NullableTimestamp(),
  },
  { description: 'The action call, once execute_data_agent_recommendation ran it.' },
);

export const RecommendationSchema = Resource('DataAgentRecommendation', {
  id: RecordId('dar'),
  title: Text('Follow up on stalled deals'),
  rationale: Text('Deals idle for 30 days close half as often.'),
  evidence: Type.Array(ObjectRefSchema, { description: 'Insights, queries and other records it rests on.' }),
  action: Shape({
    tool: Text('create_task', 'A registry tool name.'),
    arguments: AnyJson("The tool's input, validated against its schema at create."),
  }),
  status: Enum(RECOMMENDATION_STATUSES),
  decision_note: NullableText('Go ahead.', 'Note given when approved or rejected.'),
  decided_at: NullableTimestamp(),
  execution: Nullable(ExecutionSchema),
  ...timestamps,
});

export const SOURCE_OBJECT_KINDS = [
  'workspace_record',
  'bi_dataset',
  'app_event_stream',
  'external_uri',
] as const;

export const SourceObjectSchema = Resource('DataAgentSourceObject', {
  id: RecordId('dso'),
  kind: Enum(SOURCE_OBJECT_KINDS),
  name: Text('Content entries'),
  record: Nullable(ObjectRefSchema, { description: 'kind workspace_record: the record.' }),
  dataset_key: NullableText('content_performance', 'kind bi_dataset: the BI dataset key.'),
  app: NullableText('web', 'kind app_event_stream: the application.'),
  object_type: NullableText('article', 'kind app_event_stream: the object type.'),
  uri: NullableText(
    's3://warehouse/exports/posts.parquet',
    'kind external_uri: stored as text, never fetched.',
  ),
  description: NullableText('Every CMS entry with its status and channel.'),
  owner: NullableText('content-team'),
  ...timestamps,
});

export const KNOWLEDGE_KINDS = ['document', 'glossary', 'faq', 'playbook', 'summary'] as const;
export const KNOWLEDGE_STATUSES = ['draft', 'published', 'archived'] as const;

export const KnowledgeArtifactSchema = Resource('DataAgentKnowledgeArtifact', {
  id: RecordId('dka'),
  title: Text('Content performance, November'),
  kind: Enum(KNOWLEDGE_KINDS),
  content: Text('# Content performance\n\n42 posts published ...', 'Markdown, at most 256 KiB.'),
  source_refs: Type.Array(ObjectRefSchema, { description: 'The records the content was built from.' }),
  status: Enum(KNOWLEDGE_STATUSES),
  ...timestamps,
});
