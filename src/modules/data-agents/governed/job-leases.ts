// The lease sweep: a job an external worker claimed and stopped reporting on past its lease is taken back.
// While attempts remain it is queued again (another worker may claim it); else it fails with
// lease_expired. Each move is guarded by the claim it saw, so a report racing the sweep wins or loses whole.
import { auditRow, insertAuditEvents, systemWrite } from '../../../core/audit.ts';
import { insertOutboxEvents, outboxRow } from '../../../core/outbox.ts';
import type { PeriodicTask } from '../../../jobs/types.ts';
import { expiredClaims, insertLogLines, MAX_LOG_LINES, updateJobIf } from './job-store.ts';
import type { DataAgentExecutionJobsTable } from './job-tables.ts';
import { moveColumns, statusEvent } from './job-transitions.ts';

const BATCH = 100;

export const executionLeaseSweep: PeriodicTask = {
  name: 'data-agents.execution-leases',
  run: async (env) => {
    const now = env.clock.now().toISOString();
    const expired = await expiredClaims(env.db, now, BATCH);
    for (const job of expired) {
      await env.db.transaction().execute(async (trx) => {
        const retry = job.attempts < job.max_attempts;
        const to = retry ? 'queued' : 'failed';
        const message = `The claim of ${job.worker_id} lapsed at ${job.lease_expires_at} without a report (attempt ${job.attempts} of ${job.max_attempts}).`;
        const logged = job.log_count < MAX_LOG_LINES;
        const changes: Partial<DataAgentExecutionJobsTable> = {
          ...moveColumns(job, to, now),
          worker_id: null,
          worker_credential_id: null,
          lease_expires_at: null,
          error_code: 'lease_expired',
          error_message: message,
          log_count: job.log_count + (logged ? 1 : 0),
        };
        if (!(await updateJobIf(trx, job, changes))) return;
        if (logged) await insertLogLines(trx, job, [{ level: 'warn', message, logged_at: now }], now);
        const write = systemWrite({
          workspaceId: job.workspace_id,
          occurredAt: now,
          actorName: 'execution lease sweep',
          tool: 'update_data_agent_execution_job',
          defaultAction: to,
          causedBy: job.id,
        });
        await insertAuditEvents(trx, [
          auditRow(write, {
            targetType: 'data_agent_execution_job',
            targetId: job.id,
            changedFields: Object.keys(changes),
          }),
        ]);
        await insertOutboxEvents(trx, [
          outboxRow(job.workspace_id, write.requestId, now, statusEvent({ ...job, ...changes }, job.status)),
        ]);
      });
    }
  },
};
