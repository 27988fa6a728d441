// The native plane: a dispatched job becomes a run (src/core/runs.ts) whose queue job claims the execution
// job (queued -> running), runs the runner of its type, and finishes it (completed, or needs_review when it
// must be reviewed; failed with the runner's error). The runners are a map by job type: a type without one
// is refused at dispatch on the native plane (validation_failed on job_type), never pretended.
// Writes of the run are audited as the system on behalf of the dispatcher's credential, with the run as
// their cause, and emit status_changed like a call's moves.
import type { Kysely } from 'kysely';
import { auditRow, insertAuditEvents } from '../../../core/audit.ts';
import { type Clock, systemClock } from '../../../core/clock.ts';
import type { AuditEntry, DomainEvent } from '../../../core/context.ts';
import { type FieldError, ServiceError } from '../../../core/errors.ts';
import { insertOutboxEvents, outboxRow } from '../../../core/outbox.ts';
import { defineRunJob, type RunWorkContext } from '../../../core/run-job.ts';
import { findRun } from '../../../core/runs.ts';
import type { Dialect } from '../../../db/database.ts';
import type { DB } from '../../../db/tables.ts';
import type { JobDefinition } from '../../../jobs/types.ts';
import { type JobOutput, jobOutputJson, recordJobEdges } from './job-outputs.ts';
import { biQueryRunner, datasetSnapshotRunner, insightGenerationRunner } from './job-runners-bi.ts';
import type { JobType } from './job-schemas.ts';
import { findJob, insertLogLines, MAX_LOG_LINES, type NewLogLine, updateJobIf } from './job-store.ts';
import type { DataAgentExecutionJobsTable } from './job-tables.ts';
import { moveColumns, statusEvent } from './job-transitions.ts';
import { customRunner, knowledgeBuildRunner } from './native-runners.ts';

export const EXECUTION_JOB_QUEUE = 'data-agents.execution-job';
export const NATIVE_TIMEOUT_SECONDS = 300;

export interface NativeRunContext {
  job: DataAgentExecutionJobsTable;
  /** The job's input, as validated when it was created or edited. */
  input: Record<string, any>;
  workspaceId: string;
  /** PostgreSQL: the run's transaction; SQLite: the database. */
  db: Kysely<DB>;
  /** For long reads (stopped at the timeout or a cancel). */
  reads: Kysely<DB>;
  dialect: Dialect;
  /** The dispatcher's credential (BI governance: a draft metric is usable by its creator only). */
  credentialId: string | null;
  signal: AbortSignal;
  now(): string;
  /** Calls a registry tool on the dispatcher's behalf, through the pipeline (scopes and modules checked). */
  call: RunWorkContext['call'];
  log(message: string, level?: NewLogLine['level']): void;
  /** Audit entries and domain events of records the runner wrote, recorded with the job's. */
  audit(entry: AuditEntry): void;
  emit(event: DomainEvent): void;
}

export interface NativeRunner {
  /** Checked at dispatch: what the native plane cannot run in this input (custom without steps). */
  check?(input: Record<string, any>): FieldError | undefined;
  run(ctx: NativeRunContext): Promise<JobOutput>;
}

// One entry per job type the native plane runs; a type joins by adding its runner here.
export const nativeRunners: Partial<Record<JobType, NativeRunner>> = {
  bi_query: biQueryRunner,
  dataset_snapshot: datasetSnapshotRunner,
  insight_generation: insightGenerationRunner,
  custom: customRunner,
  knowledge_build: knowledgeBuildRunner,
};

/** The run job over the service clock (tests move it). */
const runJob = (clock: Clock) =>
  defineRunJob({
    name: EXECUTION_JOB_QUEUE,
    timeoutSeconds: NATIVE_TIMEOUT_SECONDS,
    retryLimit: 2,
    retryDelaySeconds: 5,
    work: async (context) => {
      const { execution_job_id: jobId, job_workspace_id: workspaceId } = context.payload as Record<
        string,
        string
      >;
      const now = () => clock.now().toISOString();
      const found = await findJob(context.db, workspaceId!, jobId!);
      // Claimed from queued, or again (running, same run) when an earlier attempt of the run died.
      if (!found || found.run_id !== context.run.id || !['queued', 'running'].includes(found.status))
        return {};
      const effects = new Effects(workspaceId!, context);
      const claimedAt = now();
      const claim = {
        ...(found.status === 'queued' ? moveColumns(found, 'running', claimedAt) : { updated_at: claimedAt }),
        attempts: context.attempt,
      };
      if (!(await updateJobIf(context.db, found, claim))) return {};
      const job = { ...found, ...claim };
      if (found.status === 'queued') effects.moved(job, found.status, ['status', 'attempts']);

      const lines: NewLogLine[] = [];
      const log = (message: string, level: NewLogLine['level'] = 'info') => {
        if (job.log_count + lines.length < MAX_LOG_LINES) lines.push({ level, message, logged_at: now() });
      };
      let output: JobOutput | undefined;
      let error: { code: string; message: string } | undefined;
      try {
        const runnerOf = nativeRunners[job.job_type as JobType];
        if (!runnerOf) throw new Error(`no native runner for ${job.job_type}`);
        log(`Attempt ${context.attempt} started on the native plane.`);
        output = await runnerOf.run({
          job,
          input: JSON.parse(job.input),
          workspaceId: workspaceId!,
          db: context.db,
          reads: context.reads,
          dialect: context.dialect,
          credentialId: context.run.credential_id ?? null,
          signal: context.signal,
          now,
          call: context.call,
          log,
          audit: (entry) => effects.audits.push(entry),
          emit: (event) => effects.events.push(event),
        });
        log(output.summary);
      } catch (thrown) {
        // A refusal of the service (a tool's validation, a missing scope) ends the job; anything else is
        // retried by the run (and the job failed by finishNative when the run gives up).
        if (!(thrown instanceof ServiceError)) throw thrown;
        error = { code: thrown.code, message: thrown.message };
        log(`Failed: ${thrown.code}: ${thrown.message}`, 'error');
      }
      const finishedAt = now();
      const to = error ? 'failed' : job.require_review === 1 ? 'needs_review' : 'completed';
      const finish: Partial<DataAgentExecutionJobsTable> = {
        ...moveColumns(job, to, finishedAt),
        log_count: job.log_count + lines.length,
        ...(output ? { output: jobOutputJson(output), progress: 100 } : {}),
        ...(error ? { error_code: error.code, error_message: error.message.slice(0, 1000) } : {}),
      };
      // The job's end, its log, lineage and events commit together (PostgreSQL: the run's transaction).
      const finished = await atomically(context, async (db) => {
        // Canceled meanwhile: nothing of this attempt is recorded (PostgreSQL rolls the runner's writes back).
        if (!(await updateJobIf(db, job, finish))) return false;
        await insertLogLines(db, job, lines, finishedAt);
        if (output) await recordJobEdges(db, job, output, finishedAt);
        effects.moved({ ...job, ...finish }, job.status, Object.keys(finish));
        await effects.write(db, finishedAt);
        return true;
      });
      return finished ? { resultRef: `data_agent_execution_job:${job.id}` } : {};
    },
  });

/** PostgreSQL: the run's transaction already; SQLite: a transaction of its own. */
const atomically = <T>(context: RunWorkContext, work: (db: Kysely<DB>) => Promise<T>): Promise<T> =>
  context.dialect === 'postgres' ? work(context.db) : context.db.transaction().execute(work);

/** The audit events and outbox events of one attempt, written with its last step. */
class Effects {
  audits: AuditEntry[] = [];
  events: DomainEvent[] = [];
  constructor(
    private readonly workspaceId: string,
    private readonly context: RunWorkContext,
  ) {}

  moved(row: DataAgentExecutionJobsTable, previous: string, changedFields: string[]) {
    this.audits.push({
      targetType: 'data_agent_execution_job',
      targetId: row.id,
      action: row.status,
      changedFields,
    });
    this.events.push(statusEvent(row, previous));
  }

  async write(db: Kysely<DB>, now: string) {
    const { run } = this.context;
    const write = {
      workspaceId: this.workspaceId,
      requestId: run.request_id,
      occurredAt: now,
      actor: {
        type: 'system' as const,
        credentialId: null,
        name: `run ${run.id}`,
        ...(run.credential_id ? { onBehalfOf: run.credential_id } : {}),
      },
      surface: 'worker' as const,
      tool: 'dispatch_data_agent_execution_job',
      defaultAction: 'update',
      causedBy: run.id,
    };
    await insertAuditEvents(
      db,
      this.audits.map((entry) => auditRow(write, entry)),
    );
    await insertOutboxEvents(
      db,
      this.events.map((event) => outboxRow(this.workspaceId, run.request_id, now, event)),
    );
  }
}

/**
 * The queue job of the native plane. After an attempt, a run that ended failed (out of retries, timed out)
 * fails its execution job too, so a job never stays running after its run gave up.
 */
export const executionJobRunner: JobDefinition = {
  ...runJob(systemClock),
  run: async (job, env) => {
    try {
      await runJob(env.clock).run(job, env);
    } finally {
      await failWithRun(env.db, job.payload as Record<string, string>, env.clock.now().toISOString());
    }
  },
};

async function failWithRun(db: Kysely<DB>, payload: Record<string, string>, now: string) {
  const workspaceId = payload.job_workspace_id!;
  const run = await findRun(db, workspaceId, payload.run_id!);
  if (run?.status !== 'failed') return;
  const job = await findJob(db, workspaceId, payload.execution_job_id!);
  if (!job || job.run_id !== run.id || !['queued', 'running'].includes(job.status)) return;
  const finish = {
    ...moveColumns(job, 'failed', now),
    error_code: run.error_code ?? 'internal_error',
    error_message: run.error_message ?? 'The run failed.',
  };
  await db.transaction().execute(async (trx) => {
    if (!(await updateJobIf(trx, job, finish))) return;
    const write = {
      workspaceId,
      requestId: run.request_id,
      occurredAt: now,
      actor: { type: 'system' as const, credentialId: null, name: `run ${run.id}` },
      surface: 'worker' as const,
      tool: 'dispatch_data_agent_execution_job',
      defaultAction: 'update',
      causedBy: run.id,
    };
    const after = { ...job, ...finish };
    await insertAuditEvents(trx, [
      auditRow(write, {
        targetType: 'data_agent_execution_job',
        targetId: job.id,
        action: 'failed',
        changedFields: Object.keys(finish),
      }),
    ]);
    await insertOutboxEvents(trx, [
      outboxRow(workspaceId, run.request_id, now, statusEvent(after, job.status)),
    ]);
  });
}
