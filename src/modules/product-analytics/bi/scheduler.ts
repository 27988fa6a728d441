// The BI scheduler. Every node's worker runs the sweep each tick: for each due schedule it takes the
// occurrence in one transaction (a guarded UPDATE moves next_run_at from the value read to the first
// occurrence after now, so a missed period runs once, and two nodes never both win), starts a BI run
// (trigger schedule, on the owner's behalf) and enqueues its job keyed by (schedule, occurrence). The job
// checks the owner and the target through get_record on the owner's behalf, then refreshes the target.
import { fail, ServiceError } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { defineRunJob, type RunWorkContext } from '../../../core/run-job.ts';
import { startRun } from '../../../core/runs.ts';
import type { JobEnv, PeriodicTask } from '../../../jobs/types.ts';
import { attachBiRun } from './run-query.ts';
import { nextOccurrence } from './schedule-rules.ts';
import { claimOccurrence, dueSchedules, findSchedule, ruleOf, updateScheduleRow } from './schedule-store.ts';
import type { BiScheduledArtifactsTable } from './schedule-tables.ts';
import { SCHEDULE_TARGETS } from './schedule-targets.ts';

export const SCHEDULE_RUN_TYPE = 'bi_scheduled_refresh';
const JOB = 'bi.scheduled_refresh';
/** Schedules taken per tick and node: the rest wait for the next tick (oldest due first). */
const SWEEP_BATCH = 100;

/** Payload of the run's job besides workspace_id and run_id. */
interface RefreshPayload {
  scheduled_artifact_id: string;
  occurrence: string;
}

/**
 * Takes one due occurrence of a schedule and starts its run, all in one transaction; nothing when another
 * node took it first. Returns the run's ID when this call started it.
 */
export async function startOccurrence(
  env: Pick<JobEnv, 'db' | 'queue' | 'logger'>,
  row: BiScheduledArtifactsTable,
  now: Date,
): Promise<string | undefined> {
  const occurrence = row.next_run_at!;
  const next = new Date(nextOccurrence(ruleOf(row), now.getTime())).toISOString();
  return env.db.transaction().execute(async (trx) => {
    const at = now.toISOString();
    if (!(await claimOccurrence(trx, row, { next_run_at: next, last_run_at: at }))) return undefined;
    const run = await startRun(trx, env.queue, {
      workspaceId: row.workspace_id,
      runType: SCHEDULE_RUN_TYPE,
      module: 'product_analytics_bi',
      operation: 'create_bi_scheduled_artifact',
      job: JOB,
      trigger: 'schedule',
      inputSummary: {
        scheduled_artifact_id: row.id,
        occurrence,
        target: { type: row.target_type, id: row.target_id },
      },
      payload: { scheduled_artifact_id: row.id, occurrence } satisfies RefreshPayload,
      requestId: newId('req'),
      credentialId: row.owner_credential_id,
      now: at,
      // One job per occurrence, whichever node enqueues it.
      jobKey: `${JOB}:${row.workspace_id}:${row.id}:${occurrence}`,
    });
    await attachBiRun(
      trx,
      row.workspace_id,
      run.id,
      [
        { type: 'scheduled_artifact', id: row.id },
        { type: row.target_type, id: row.target_id },
      ],
      at,
    );
    await updateScheduleRow(trx, row.workspace_id, row.id, { last_run_id: run.id });
    return run.id;
  });
}

export const scheduleSweep: PeriodicTask = {
  name: 'bi.schedules-sweep',
  run: async (env) => {
    const now = env.clock.now();
    const due = await dueSchedules(env.db, now.toISOString(), SWEEP_BATCH);
    for (const row of due) {
      try {
        await startOccurrence(env, row, now);
      } catch (err) {
        // One schedule's failure (its row, its queue) must not hold back the others.
        env.logger.error({ err, scheduled_artifact_id: row.id }, 'scheduled BI run could not start');
      }
    }
  },
};

/** The owner credential is checked by the pipeline; its refusal gets a message that says what it means here. */
function ownerRefused(error: ServiceError, credentialId: string | null): ServiceError {
  if (error.code === 'workspace_not_found') {
    return fail('workspace_not_found', {
      message:
        `The schedule's owner credential ${credentialId} was revoked (or its workspace deleted): scheduled ` +
        'refreshes run on its behalf. Create the schedule again with a live credential.',
    });
  }
  if (error.code === 'missing_required_scope' || error.code === 'module_not_enabled') {
    return fail(error.code, {
      message: `The schedule's owner credential ${credentialId} may no longer do this: ${error.message}`,
      ...(error.extras.required_scope ? { required_scope: error.extras.required_scope } : {}),
    });
  }
  return error;
}

async function refresh(work: RunWorkContext) {
  const { scheduled_artifact_id: id } = work.payload as unknown as RefreshPayload;
  const schedule = await findSchedule(work.db, work.workspaceId, id);
  if (!schedule || schedule.archived_at) {
    throw fail('resource_not_found', {
      message: 'The scheduled artifact was archived before its run started.',
    });
  }
  const target = SCHEDULE_TARGETS[schedule.target_type];
  if (!target) {
    throw fail('validation_failed', {
      message: `No ${schedule.target_type} target can be refreshed on a schedule.`,
    });
  }
  try {
    // Through the pipeline as the owner: a revoked credential, a removed scope or a disabled module fails
    // here as the owner's own call would, and so does a target archived since the schedule was made.
    await work.call('get_record', { type: target.recordType, id: schedule.target_id });
  } catch (thrown) {
    throw thrown instanceof ServiceError ? ownerRefused(thrown, work.run.credential_id) : thrown;
  }
  work.signal.throwIfAborted();
  const result = await target.refresh(work, schedule.target_id);
  return { resultRef: result.resultRef ?? null };
}

export const scheduledRefreshJob = defineRunJob({
  name: JOB,
  timeoutSeconds: 600,
  retryLimit: 2,
  retryDelaySeconds: 30,
  work: refresh,
});
