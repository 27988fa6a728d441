// Domain events of execution planes, execution jobs and lineage edges; their data are the resources.
import { Type } from '@sinclair/typebox';
import type { DomainEventType } from '../../../core/module.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { ExecutionJobSchema, ExecutionPlaneSchema, JOB_STATUSES, LineageEdgeSchema } from './job-schemas.ts';

export const JobStatusChangeSchema = Type.Object(
  {
    ...ExecutionJobSchema.properties,
    previous_status: Enum(JOB_STATUSES, { description: 'The status the job left.' }),
  },
  { title: 'DataAgentExecutionJobStatusChange', additionalProperties: false },
);

export const jobEvents: DomainEventType[] = [
  {
    name: 'data_agent_execution_plane.created',
    description:
      'An execution plane was registered (or the native plane created on first use); data is the plane.',
    schema: ExecutionPlaneSchema,
  },
  {
    name: 'data_agent_execution_plane.updated',
    description: 'An execution plane changed (name, status, job types, settings, lease); data is the plane.',
    schema: ExecutionPlaneSchema,
  },
  {
    name: 'data_agent_execution_job.created',
    description: 'An execution job was created in draft; data is the job.',
    schema: ExecutionJobSchema,
  },
  {
    name: 'data_agent_execution_job.updated',
    description: "A draft execution job's title, input or settings changed; data is the job.",
    schema: ExecutionJobSchema,
  },
  {
    name: 'data_agent_execution_job.status_changed',
    description:
      'An execution job moved (dispatched, claimed, finished, reviewed, canceled, re-queued after a lapsed claim); data is the job plus previous_status.',
    schema: JobStatusChangeSchema,
  },
  {
    name: 'data_agent_lineage_edge.created',
    description: 'A lineage edge was recorded (by a call or by a job as it ran); data is the edge.',
    schema: LineageEdgeSchema,
  },
];
