// update_data_agent_execution_job: edits a draft, cancels a queued or running job, and is how an external
// plane's worker claims a queued job (status running, worker_id, a lease), reports progress, log lines and
// output, and finishes it (completed, failed, needs_review). Every report renews the lease; a claim that
// lapses is failed or re-queued by the lease sweep (job-leases.ts).
import { Type } from '@sinclair/typebox';
import { requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { fail, notFound, validationFailed } from '../../../core/errors.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import { jobIdInput } from './execution-jobs.ts';
import { checkJobInput } from './job-inputs.ts';
import { cancelNativeRun, jobOutputJson, recordJobEdges } from './job-outputs.ts';
import { type JobType, LOG_LEVELS } from './job-schemas.ts';
import { findJob, insertLogLines, MAX_LOG_LINES, MAX_LOG_MESSAGE, toJob } from './job-store.ts';
import type { DataAgentExecutionJobsTable, DataAgentExecutionPlanesTable } from './job-tables.ts';
import { applyMove, assertMove, illegalMove, recordMove } from './job-transitions.ts';
import { checkNodes, nodeRefInput } from './lineage-nodes.ts';
import { findPlane } from './plane-store.ts';

const DRAFT_FIELDS = ['title', 'input', 'require_review', 'max_attempts'] as const;
const WORKER_FIELDS = ['worker_id', 'lease_seconds', 'progress', 'logs', 'output', 'error'] as const;

export const outputInput = Strict({
  summary: Type.String({ minLength: 1, maxLength: 2000 }),
  produced: Type.Optional(Type.Array(nodeRefInput(), { maxItems: 50 })),
  reads: Type.Optional(Type.Array(nodeRefInput(), { maxItems: 50 })),
  data: Type.Optional(MapOf(Type.Unknown(), { description: 'Result details, at most 64 KiB of JSON.' })),
});

export const updateExecutionJob = defineOperation({
  name: 'update_data_agent_execution_job',
  module: 'data_agents',
  scopes: ['data_agents:write', 'data_agents:execute'],
  kind: 'update',
  summary: 'Edit, cancel, or report on an execution job',
  description:
    "Edits a draft (title, input, require_review, max_attempts); cancels a queued or running job (status canceled); or, for a worker of an external plane: claims a queued job (status running with worker_id; the claim lasts lease_seconds), reports progress, log lines (appended, at most 1,000 a job) and output while running (each report renews the claim), and finishes it (completed, failed with error, needs_review). output.produced and output.reads are recorded as lineage. A move the job's status does not allow is 409 conflict naming it. Emits data_agent_execution_job.status_changed on every move.",
  input: Strict({
    job_id: jobIdInput,
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    input: Type.Optional(MapOf(Type.Unknown())),
    require_review: Type.Optional(Type.Boolean()),
    max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: 10 })),
    status: Type.Optional(Enum(['running', 'completed', 'failed', 'needs_review', 'canceled'] as const)),
    worker_id: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'The claiming worker; sent with every report.',
      }),
    ),
    lease_seconds: Type.Optional(
      Type.Integer({
        minimum: 10,
        maximum: 86_400,
        description: "Claim length from now (default: the plane's).",
      }),
    ),
    progress: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    logs: Type.Optional(
      Type.Array(
        Strict({
          message: Type.String({ minLength: 1, maxLength: MAX_LOG_MESSAGE }),
          level: Type.Optional(Enum(LOG_LEVELS)),
          logged_at: Type.Optional(Type.String({ format: 'date-time' })),
        }),
        { maxItems: 100, description: 'Lines appended to the job log, in order (at most 100 a call).' },
      ),
    ),
    output: Type.Optional(outputInput),
    error: Type.Optional(
      Strict({
        code: Type.String({ pattern: '^[a-z][a-z0-9_]{0,63}$' }),
        message: Type.String({ minLength: 1, maxLength: 1000 }),
      }),
    ),
  }),
  rest: { method: 'PATCH', path: '/v1/data-agents/execution-jobs/{job_id}' },
  responseKey: 'execution_job',
  handler: async (ctx, input) => {
    requireSomeField(input, ['status', ...DRAFT_FIELDS, ...WORKER_FIELDS]);
    const row = await findJob(ctx.db, ctx.workspaceId, input.job_id);
    if (!row) throw notFound('execution job');
    const sent = (fields: readonly string[]) =>
      fields.filter((f) => (input as Record<string, unknown>)[f] !== undefined);

    if (sent(DRAFT_FIELDS).length) return editDraft(ctx, row, input, sent([...WORKER_FIELDS, 'status']));
    if (input.status === 'canceled') {
      const extra = sent(WORKER_FIELDS);
      if (extra.length)
        throw validationFailed(extra.map((field) => ({ field, message: 'is not sent with a cancel' })));
      assertMove(row, 'canceled');
      const after = await applyMove(ctx.db, row, 'canceled', ctx.now);
      await cancelNativeRun(ctx.db, row, ctx.now);
      recordMove(ctx, row, after, ['status']);
      return { body: { execution_job: toJob(after) } };
    }
    return workerReport(ctx, row, input);
  },
});

async function editDraft(
  ctx: OperationContext,
  row: DataAgentExecutionJobsTable,
  input: Record<string, any>,
  others: string[],
) {
  if (others.length) {
    throw validationFailed(others.map((field) => ({ field, message: "is not sent with a draft's edits" })));
  }
  if (row.status !== 'draft') {
    throw fail('conflict', { message: `The execution job is ${row.status}; only a draft can be edited.` });
  }
  if (input.input !== undefined) await checkJobInput(ctx, row.job_type as JobType, input.input);
  const changes: Partial<DataAgentExecutionJobsTable> = {};
  if (input.title !== undefined && input.title !== row.title) changes.title = input.title;
  if (input.input !== undefined && JSON.stringify(input.input) !== row.input)
    changes.input = JSON.stringify(input.input);
  if (input.require_review !== undefined && Number(input.require_review) !== row.require_review)
    changes.require_review = input.require_review ? 1 : 0;
  if (input.max_attempts !== undefined && input.max_attempts !== row.max_attempts)
    changes.max_attempts = input.max_attempts;
  const changed = Object.keys(changes);
  const after = changed.length ? await applyMove(ctx.db, row, 'draft', ctx.now, changes) : row;
  ctx.audit({ targetType: 'data_agent_execution_job', targetId: row.id, changedFields: changed });
  if (changed.length) {
    ctx.emit({
      name: 'data_agent_execution_job.updated',
      targetType: 'data_agent_execution_job',
      targetId: row.id,
      data: toJob(after),
    });
  }
  return { body: { execution_job: toJob(after) } };
}

const callerCredential = (ctx: OperationContext) => ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null;

/**
 * A claim needs an active plane (409 while inactive) and a credential the plane lists (403); a report on a
 * claim needs the credential that claimed it (403). A job claimed before claims recorded their credential
 * (worker_credential_id null) is reported on by its worker_id alone.
 */
function checkWorkerCredential(
  ctx: OperationContext,
  plane: DataAgentExecutionPlanesTable | undefined,
  row: DataAgentExecutionJobsTable,
  claiming: boolean,
) {
  const credential = callerCredential(ctx);
  if (claiming) {
    if (plane?.status === 'inactive') {
      throw fail('conflict', {
        message:
          'The execution plane is inactive: its queued jobs cannot be claimed until it is active again.',
      });
    }
    const workers = JSON.parse(plane?.worker_credential_ids ?? '[]') as string[];
    if (!credential || !workers.includes(credential)) {
      throw fail('credential_not_allowed', {
        message:
          "This credential is not one of the execution plane's workers (worker_credential_ids): it cannot claim the plane's jobs.",
      });
    }
  } else if (row.worker_credential_id !== null && row.worker_credential_id !== credential) {
    throw fail('credential_not_allowed', {
      message:
        'Another credential claimed the execution job: only the credential that claimed it reports on it.',
    });
  }
}

async function workerReport(
  ctx: OperationContext,
  row: DataAgentExecutionJobsTable,
  input: Record<string, any>,
) {
  const plane = await findPlane(ctx.db, ctx.workspaceId, row.plane_id);
  if (plane?.kind === 'native') {
    throw fail('conflict', {
      message: `The execution job runs on the native plane (it is ${row.status}): the service claims and reports it, not a worker.`,
    });
  }
  if (!input.worker_id)
    throw validationFailed([{ field: 'worker_id', message: 'is required to claim or report on a job' }]);
  const claiming = row.status === 'queued';
  const to = input.status ?? row.status;
  if (claiming && to !== 'running') {
    throw illegalMove(
      row.status,
      to,
      'A worker claims a queued job first: status running with its worker_id.',
    );
  }
  if (!claiming && row.status !== 'running') throw illegalMove(row.status, to);
  checkWorkerCredential(ctx, plane, row, claiming);
  if (!claiming && row.worker_id !== input.worker_id) {
    throw fail('conflict', {
      message: `The execution job is running, claimed by another worker (${row.worker_id}); only it may report.`,
    });
  }
  if (to === 'failed' && !input.error)
    throw validationFailed([{ field: 'error', message: 'is required with status failed' }]);
  if (input.error && to !== 'failed')
    throw validationFailed([{ field: 'error', message: 'is sent with status failed' }]);
  const lines = (input.logs ?? []) as { message: string; level?: string; logged_at?: string }[];
  if (row.log_count + lines.length > MAX_LOG_LINES) {
    throw validationFailed([
      {
        field: 'logs',
        message: `the job holds ${row.log_count} of ${MAX_LOG_LINES} log lines: at most ${MAX_LOG_LINES - row.log_count} more`,
      },
    ]);
  }
  const output = input.output;
  if (output) {
    await checkNodes(ctx, [
      ...(output.produced ?? []).map((ref: any, i: number) => ({ field: `output.produced[${i}]`, ref })),
      ...(output.reads ?? []).map((ref: any, i: number) => ({ field: `output.reads[${i}]`, ref })),
    ]);
  }
  // A job that must be reviewed finishes in needs_review, whatever its worker reports.
  const target = to === 'completed' && row.require_review === 1 ? 'needs_review' : to;
  const leaseSeconds = input.lease_seconds ?? plane?.lease_seconds ?? 300;
  const changes: Partial<DataAgentExecutionJobsTable> = {
    log_count: row.log_count + lines.length,
    ...(input.progress !== undefined ? { progress: input.progress } : {}),
    ...(output ? { output: jobOutputJson(output) } : {}),
    ...(input.error ? { error_code: input.error.code, error_message: input.error.message } : {}),
    ...(target === 'running'
      ? { lease_expires_at: new Date(ctx.clock.now().getTime() + leaseSeconds * 1000).toISOString() }
      : {}),
    ...(claiming
      ? {
          worker_id: input.worker_id,
          worker_credential_id: callerCredential(ctx),
          attempts: row.attempts + 1,
          error_code: null,
          error_message: null,
        }
      : {}),
    ...(target === 'completed' || target === 'needs_review' ? { progress: 100 } : {}),
  };
  const after = await applyMove(ctx.db, row, target, ctx.now, changes);
  await insertLogLines(
    ctx.db,
    row,
    lines.map((line) => ({
      level: line.level ?? 'info',
      message: line.message,
      logged_at: line.logged_at ?? ctx.now,
    })),
    ctx.now,
  );
  if (output) await recordJobEdges(ctx.db, row, output, ctx.now);
  recordMove(
    ctx,
    row,
    after,
    Object.keys(changes)
      .filter((key) => key !== 'lease_expires_at')
      .concat(target !== row.status ? ['status'] : []),
  );
  return { body: { execution_job: toJob(after) } };
}
