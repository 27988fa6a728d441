// The resources of execution planes, execution jobs, their log lines and lineage edges, declared once:
// responses, MCP outputSchema, OpenAPI and the domain events' data reuse them.
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
  Timestamp,
  timestamps,
} from '../../../core/resource-schema.ts';
import { MapOf } from '../../../core/schema.ts';

export const JOB_TYPES = [
  'bi_query',
  'dataset_snapshot',
  'insight_generation',
  'knowledge_build',
  'custom',
] as const;
export type JobType = (typeof JOB_TYPES)[number];

export const JOB_STATUSES = [
  'draft',
  'queued',
  'running',
  'completed',
  'failed',
  'needs_review',
  'approved',
  'rejected',
  'canceled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const JOB_TRIGGERS = ['manual', 'schedule', 'analytics_pipeline', 'agent'] as const;
export const PLANE_KINDS = ['native', 'external'] as const;
export const PLANE_STATUSES = ['active', 'inactive', 'degraded'] as const;
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;

export const LINEAGE_RELATIONS = [
  'reads',
  'produces',
  'derived_from',
  'uses_metric',
  'publishes',
  'cites',
] as const;
export type LineageRelation = (typeof LINEAGE_RELATIONS)[number];

export const NODE_TYPES = [
  'source_object',
  'dataset_version',
  'execution_job',
  'bi_query',
  'metric',
  'report',
  'insight',
  'knowledge_artifact',
  'recommendation',
  'bi_dataset',
] as const;
export type NodeType = (typeof NODE_TYPES)[number];

/** A lineage node type: one of NODE_TYPES, or record:<record type> for a workspace record. */
export const NODE_TYPE_PATTERN = `^(${NODE_TYPES.join('|')}|record:[a-z][a-z0-9_]{0,99})$`;

export const NodeRefSchema = Shape(
  {
    type: Text(
      'dataset_version',
      `${NODE_TYPES.join(', ')}, or record:<type> for a workspace record (record:contact).`,
    ),
    id: RecordId('dxj'),
  },
  { description: 'A typed reference to a lineage node of this workspace.' },
);

export const ExecutionPlaneSchema = Resource('DataAgentExecutionPlane', {
  id: RecordId('dxp'),
  name: Text('Warehouse workers'),
  kind: Enum(PLANE_KINDS, {
    description: 'native: the service runs the jobs; external: an outside worker claims and reports them.',
  }),
  status: Enum(PLANE_STATUSES),
  capabilities: Type.Array(Enum(JOB_TYPES), { description: 'The job types the plane accepts.' }),
  config: MapOf(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
    description: 'Non-secret settings the workers read (region, queue name, ...).',
    examples: [{ region: 'eu-west-1' }],
  }),
  lease_seconds: Type.Integer({
    examples: [300],
    description: 'How long a claim lasts without a report before the job is failed or re-queued.',
  }),
  worker_credential_ids: Type.Array(RecordId('key'), {
    description:
      'The credentials (API keys, MCP tokens) allowed to claim its jobs; only the one that claimed a job reports on it. Empty on the native plane.',
  }),
  builtin: Type.Boolean({ description: "True on the workspace's own native plane, created on first use." }),
  ...timestamps,
});

export const JobErrorSchema = Shape({
  code: Text('worker_error', 'A short machine-readable code.'),
  message: Text('The warehouse rejected the query.'),
});

export const JobOutputSchema = Shape(
  {
    summary: Text('Snapshot of 1,204 rows taken.', 'What the job did, in one or two sentences.'),
    produced: Type.Array(NodeRefSchema, { description: 'What the job produced (lineage: job produces).' }),
    reads: Type.Array(NodeRefSchema, { description: 'What the job read (lineage: job reads).' }),
    data: AnyJson('Result details (row counts, figures, step results), at most 64 KiB of JSON.'),
  },
  { description: 'What the job reported when it finished.' },
);

export const ExecutionJobSchema = Resource('DataAgentExecutionJob', {
  id: RecordId('dxj'),
  title: NullableText('Nightly pipeline snapshot'),
  job_type: Enum(JOB_TYPES),
  status: Enum(JOB_STATUSES),
  trigger: Enum(JOB_TRIGGERS),
  plane_id: RecordId('dxp'),
  input: MapOf(AnyJson(), {
    description: "The job type's input, validated per type.",
    examples: [{ dataset_key: 'crm_pipeline' }],
  }),
  output: Nullable(JobOutputSchema),
  require_review: Type.Boolean({ description: 'A finished job waits in needs_review for a review.' }),
  attempts: Type.Integer({ examples: [1] }),
  max_attempts: Type.Integer({ examples: [3] }),
  progress: Nullable(Type.Integer({ minimum: 0, maximum: 100, examples: [40] })),
  worker_id: NullableText('worker-7', 'The external worker that claimed the job.'),
  worker_credential_id: NullableText(
    'key_01JDB3Y5Q0ZK8X4M2N7P9R6T3V',
    'The credential that claimed the job: only it may report on the claim.',
  ),
  lease_expires_at: NullableTimestamp('The claim ends then unless the worker reports again.'),
  run_id: NullableText('run_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', "The native plane's run of the job."),
  log_count: Type.Integer({ examples: [12] }),
  error: Nullable(JobErrorSchema),
  review_note: NullableText('Numbers match the finance report.'),
  reviewed_at: NullableTimestamp(),
  queued_at: NullableTimestamp(),
  started_at: NullableTimestamp(),
  finished_at: NullableTimestamp(),
  duration_ms: Nullable(Type.Integer({ examples: [1500] })),
  ...timestamps,
});

export const JobLogLineSchema = Shape({
  seq: Type.Integer({ examples: [1], description: "Position of the line in the job's log." }),
  level: Enum(LOG_LEVELS),
  message: Text('Fetched 1,204 rows.'),
  logged_at: Timestamp(),
});

export const LineageEdgeSchema = Resource('DataAgentLineageEdge', {
  id: RecordId('dle'),
  from: NodeRefSchema,
  relation: Enum(LINEAGE_RELATIONS, {
    description:
      'from reads / derived_from / uses_metric / cites to (to is upstream); from produces / publishes to (to is downstream).',
  }),
  to: NodeRefSchema,
  job_id: NullableText('dxj_01JDB3Y5Q0ZK8X4M2N7P9R6T3V', 'The execution job that recorded it as it ran.'),
  note: NullableText('Joined on the deal ID.'),
  created_at: Timestamp(),
});
