// dispatch_data_agent_execution_job (MCP-only: the explicit step that lets an agent's proposed job run) and
// review_data_agent_execution_job (approves or rejects a job that finished in needs_review).
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { fail, notFound, validationFailed } from '../../../core/errors.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { startRun } from '../../../core/runs.ts';
import { Strict } from '../../../core/schema.ts';
import type { JobQueue } from '../../../jobs/types.ts';
import { jobIdInput } from './execution-jobs.ts';
import { RUN_TYPE } from './job-outputs.ts';
import { EXECUTION_JOB_QUEUE, nativeRunners } from './job-runners.ts';
import type { JobType } from './job-schemas.ts';
import { findJob, toJob } from './job-store.ts';
import { applyMove, assertMove, recordMove } from './job-transitions.ts';
import { findPlane } from './plane-store.ts';

/** The call's queue: jobs enqueued through it commit with the call's transaction. */
const callQueue = (ctx: OperationContext): JobQueue => ({
  backend: 'sqlite',
  enqueue: (name, payload, options) =>
    ctx.enqueue(name, payload, { key: options?.key, runAt: options?.runAt }),
});

export const dispatchExecutionJob = defineOperation({
  name: 'dispatch_data_agent_execution_job',
  module: 'data_agents',
  scopes: ['data_agents:execute'],
  kind: 'action',
  summary: 'Dispatch an execution job',
  description:
    'Queues a draft execution job on its plane: the step that lets a proposed job run. On the native plane the service runs it at once in the background (runners today: custom, knowledge_build; other types are refused there with validation_failed on job_type); on an external plane it waits for a worker to claim it (update_data_agent_execution_job). Follow it with get_data_agent_execution_job_details. A job that is not a draft is 409 conflict naming its status; an inactive plane is 409 too. Emits data_agent_execution_job.status_changed.',
  input: Strict({ job_id: jobIdInput }),
  rest: null,
  responseKey: 'execution_job',
  handler: async (ctx, input) => {
    const row = await findJob(ctx.db, ctx.workspaceId, input.job_id);
    if (!row) throw notFound('execution job');
    assertMove(row, 'queued', 'Only a draft is dispatched.');
    const plane = await findPlane(ctx.db, ctx.workspaceId, row.plane_id);
    if (!plane) throw notFound('execution plane');
    if (plane.status === 'inactive') {
      throw fail('conflict', {
        message: `The plane ${plane.id} is inactive: activate it or move the job to another plane.`,
      });
    }
    if (!(JSON.parse(plane.capabilities) as string[]).includes(row.job_type)) {
      throw validationFailed([
        { field: 'job_type', message: `the plane ${plane.id} no longer accepts ${row.job_type} jobs` },
      ]);
    }
    let runId: string | null = null;
    if (plane.kind === 'native') {
      const runner = nativeRunners[row.job_type as JobType];
      if (!runner) {
        throw validationFailed([
          {
            field: 'job_type',
            message: `the native plane does not run ${row.job_type} jobs yet: dispatch it on an external plane`,
          },
        ]);
      }
      const refused = runner.check?.(JSON.parse(row.input));
      if (refused) throw validationFailed([refused]);
      const run = await startRun(ctx.db, callQueue(ctx), {
        workspaceId: ctx.workspaceId,
        runType: RUN_TYPE,
        module: 'data_agents',
        operation: 'dispatch_data_agent_execution_job',
        job: EXECUTION_JOB_QUEUE,
        trigger: row.trigger,
        inputSummary: { execution_job_id: row.id, job_type: row.job_type },
        payload: { execution_job_id: row.id, job_workspace_id: ctx.workspaceId },
        requestId: ctx.requestId,
        credentialId: ctx.actor.onBehalfOf ?? ctx.actor.credentialId,
        now: ctx.now,
      });
      runId = run.id;
    }
    const after = await applyMove(ctx.db, row, 'queued', ctx.now, { run_id: runId });
    recordMove(ctx, row, after, ['status', ...(runId ? ['run_id'] : [])]);
    return { body: { execution_job: toJob(after) } };
  },
});

export const reviewExecutionJob = defineOperation({
  name: 'review_data_agent_execution_job',
  module: 'data_agents',
  scopes: ['data_agents:execute'],
  kind: 'action',
  summary: 'Approve or reject a job awaiting review',
  description:
    'Approves or rejects an execution job in needs_review (one that finished with require_review, or that its worker sent for review), with a note kept on the job. Any other status is 409 conflict naming it. Emits data_agent_execution_job.status_changed.',
  input: Strict({
    job_id: jobIdInput,
    decision: Enum(['approved', 'rejected'] as const),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/execution-jobs/{job_id}/review' },
  responseKey: 'execution_job',
  handler: async (ctx, input) => {
    const row = await findJob(ctx.db, ctx.workspaceId, input.job_id);
    if (!row) throw notFound('execution job');
    assertMove(row, input.decision, 'Only a job in needs_review is reviewed.');
    const after = await applyMove(ctx.db, row, input.decision, ctx.now, { review_note: input.note ?? null });
    recordMove(ctx, row, after, ['status', ...(input.note !== undefined ? ['review_note'] : [])]);
    return { body: { execution_job: toJob(after) } };
  },
});
