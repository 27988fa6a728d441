import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { AnyJson, Enum, Nullable, Shape, Text } from '../../../core/resource-schema.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import { nativePlane } from './execution-planes.ts';
import { checkJobInput } from './job-inputs.ts';
import {
  ExecutionJobSchema,
  JOB_STATUSES,
  JOB_TRIGGERS,
  JOB_TYPES,
  JobLogLineSchema,
  LineageEdgeSchema,
} from './job-schemas.ts';
import { findJob, insertJob, lastLogLines, listJobs, toJob } from './job-store.ts';
import type { DataAgentExecutionJobsTable } from './job-tables.ts';
import { recordTypeOf } from './lineage-nodes.ts';
import { edgesTouching } from './lineage-store.ts';
import { findPlane } from './plane-store.ts';

export const executionJobRecord = defineRecordType({
  type: 'data_agent_execution_job',
  module: 'data_agents',
  table: 'data_agent_execution_jobs',
  // The item path /v1/data-agents/execution-jobs/{job_id} is get_data_agent_execution_job_details.
  collection: '/v1/data-agents/execution-jobs/records',
  key: 'execution_job',
  readScope: 'data_agents:read',
  schema: ExecutionJobSchema,
  toResource: toJob,
});

export const jobIdInput = Type.String({ minLength: 1, maxLength: 255 });

export const createExecutionJob = defineOperation({
  name: 'create_data_agent_execution_job',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  example: { input: { query: { dataset_key: 'crm_pipeline' } } },
  creates: 'data_agent_execution_job',
  summary: 'Create an execution job (draft)',
  description:
    "Creates an execution job in draft: a job_type (bi_query, dataset_snapshot, insight_generation, knowledge_build, custom), its input (checked against the type's schema), and a plane (default: the workspace's native plane, created on first use). Nothing runs until dispatch_data_agent_execution_job queues it. Emits data_agent_execution_job.created.",
  input: Strict({
    job_type: Enum(JOB_TYPES),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    plane_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    input: Type.Optional(
      MapOf(Type.Unknown(), { description: "The job type's input (see the docs per type)." }),
    ),
    trigger: Type.Optional(Enum(JOB_TRIGGERS, { description: 'What asked for the job (default manual).' })),
    require_review: Type.Optional(
      Type.Boolean({ description: 'Finish in needs_review, awaiting review_data_agent_execution_job.' }),
    ),
    max_attempts: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 10, description: 'Claims an external job gets (default 3).' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/execution-jobs' },
  responseKey: 'execution_job',
  handler: async (ctx, input) => {
    const native = await nativePlane(ctx);
    const plane = input.plane_id ? await findPlane(ctx.db, ctx.workspaceId, input.plane_id) : native;
    if (!plane) throw notFound('execution plane');
    if (!(JSON.parse(plane.capabilities) as string[]).includes(input.job_type)) {
      throw validationFailed([
        { field: 'job_type', message: `the plane ${plane.id} does not accept ${input.job_type} jobs` },
      ]);
    }
    const jobInput = input.input ?? {};
    await checkJobInput(ctx, input.job_type, jobInput);
    const row: DataAgentExecutionJobsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('dxj'),
      title: input.title ?? null,
      job_type: input.job_type,
      status: 'draft',
      trigger: input.trigger ?? 'manual',
      plane_id: plane.id,
      input: JSON.stringify(jobInput),
      output: null,
      require_review: input.require_review ? 1 : 0,
      attempts: 0,
      max_attempts: input.max_attempts ?? 3,
      progress: null,
      worker_id: null,
      worker_credential_id: null,
      lease_expires_at: null,
      run_id: null,
      log_count: 0,
      error_code: null,
      error_message: null,
      review_note: null,
      reviewed_at: null,
      created_by: ctx.actor.credentialId,
      queued_at: null,
      started_at: null,
      finished_at: null,
      duration_ms: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertJob(ctx.db, row);
    const job = toJob(row);
    ctx.audit({
      targetType: 'data_agent_execution_job',
      targetId: job.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'data_agent_execution_job.created',
      targetType: 'data_agent_execution_job',
      targetId: job.id,
      data: job,
    });
    return { body: { execution_job: job }, createdId: job.id };
  },
});

const JOB_FILTERS = ['status', 'job_type', 'plane_id'] as const;

export const listExecutionJobs = defineOperation({
  name: 'list_data_agent_execution_jobs',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List execution jobs',
  description:
    'Lists execution jobs, newest first, filtered by status, job_type or plane_id. An external worker polls it with status queued and its plane_id to find jobs to claim.',
  input: Strict({
    status: Type.Optional(Enum(JOB_STATUSES)),
    job_type: Type.Optional(Enum(JOB_TYPES)),
    plane_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/execution-jobs' },
  // One filter has its index, and so has a worker's poll (plane_id with status); other pairs check rows.
  heavy: (input) => {
    const set = JOB_FILTERS.filter((name) => input[name] !== undefined);
    return set.length > 1 && !(set.length === 2 && !set.includes('job_type'));
  },
  responseKey: 'execution_jobs',
  handler: async (ctx, input) => {
    const page = await listJobs(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_execution_jobs', input),
    );
    return { body: listBody('execution_jobs', page) };
  },
});

/** Log lines and lineage neighbours shown with a job; the rest is paged elsewhere. */
const DETAIL_LOG_LINES = 200;
const DETAIL_EDGES = 100;

const ProducedSchema = Shape({
  type: Text('knowledge_artifact'),
  id: Text('dka_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'),
  record: Nullable(MapOf(AnyJson()), {
    description: 'The produced record as get_record returns it; null when it is gone or not a record.',
  }),
});

export const getExecutionJobDetails = defineOperation({
  name: 'get_data_agent_execution_job_details',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'Get an execution job with its logs, lineage and outputs',
  description:
    'Returns one execution job with its last 200 log lines, its lineage neighbours (edges touching the job: what it read and produced) and the records it produced, each as get_record returns it. Use it to follow a job while it runs and to check what it made.',
  input: Strict({ job_id: jobIdInput }),
  rest: { method: 'GET', path: '/v1/data-agents/execution-jobs/{job_id}' },
  responseKey: 'execution_job',
  response: Type.Object({
    execution_job: ExecutionJobSchema,
    logs: Type.Array(JobLogLineSchema),
    lineage_edges: Type.Array(LineageEdgeSchema),
    produced: Type.Array(ProducedSchema),
  }),
  handler: async (ctx, input) => {
    const row = await findJob(ctx.db, ctx.workspaceId, input.job_id);
    if (!row) throw notFound('execution job');
    const job = toJob(row);
    const [logs, edges] = await Promise.all([
      lastLogLines(ctx.db, ctx.workspaceId, row.id, DETAIL_LOG_LINES),
      edgesTouching(ctx.db, ctx.workspaceId, { type: 'execution_job', id: row.id }, DETAIL_EDGES),
    ]);
    const produced = [];
    for (const ref of job.output?.produced ?? []) {
      const recordType = recordTypeOf(ref.type);
      const record =
        recordType && ctx.hasRecordType(recordType)
          ? await ctx.requireRecord(recordType, ref.id).catch(() => null)
          : null;
      produced.push({ type: ref.type, id: ref.id, record });
    }
    return { body: { execution_job: job, logs, lineage_edges: edges, produced } };
  },
});
