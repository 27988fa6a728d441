// How a workspace assistant run ends when the credential it acts for can no longer record it (revoked, its
// workspace deleted, a scope or module taken away): the loop records its end through update_agent_grid_run
// on the credential's behalf, and when that call is refused the service ends the Agent Grid run itself
// (actor system, caused by the platform run), so it never stays running.
import type { Kysely } from 'kysely';
import { auditRow, insertAuditEvents, systemWrite } from '../../../core/audit.ts';
import { fail, ServiceError } from '../../../core/errors.ts';
import { insertOutboxEvents, outboxRow } from '../../../core/outbox.ts';
import type { RunWorkContext } from '../../../core/run-job.ts';
import type { DB } from '../../../db/tables.ts';
import type { AgentGridRunsTable } from './agent-grid-tables.ts';
import { FINISHED } from './run-child.ts';
import { findRun, toRun, updateRunRow } from './run-store.ts';

/** Codes of a call refused because of its credential, not of what it asked. */
const CREDENTIAL_REFUSED = new Set(['workspace_not_found', 'missing_required_scope', 'module_not_enabled']);

/** The error a run ends with: a refused credential's says so, naming the credential. */
export function credentialRefusal(error: ServiceError, credentialId: string | null): ServiceError {
  if (error.code === 'workspace_not_found') {
    return fail('workspace_not_found', {
      message:
        `The credential ${credentialId} this run acts for was revoked (or its workspace deleted) while it ` +
        'ran: the assistant calls tools on its behalf. Start the run again with a live credential.',
    });
  }
  if (CREDENTIAL_REFUSED.has(error.code)) {
    return fail(error.code, {
      ...error.extras,
      message: `The credential ${credentialId} this run acts for may no longer record it: ${error.message}`,
    });
  }
  return error;
}

interface Ending {
  agentRunId: string;
  output: Record<string, unknown>;
  error: { code: string; message: string };
}

/** Fails the Agent Grid run through the pipeline; if the credential is refused, as the service. */
export async function failAgentRun(work: RunWorkContext, ending: Ending, options = {}): Promise<void> {
  const fields = {
    run_id: ending.agentRunId,
    status: 'failed',
    output: ending.output,
    error: ending.error,
  };
  try {
    await work.call('update_agent_grid_run', fields, options);
  } catch (error) {
    if (!(error instanceof ServiceError && CREDENTIAL_REFUSED.has(error.code))) return;
    await work
      .recordEnd((trx, now) => failAsSystem(trx, work, ending, now))
      .catch((err) => work.logger.error({ err, run_id: work.run.id }, 'ending an assistant run'));
  }
}

async function failAsSystem(
  trx: Kysely<DB>,
  work: RunWorkContext,
  ending: Ending,
  now: string,
): Promise<void> {
  const row = await findRun(trx, work.workspaceId, ending.agentRunId, work.dialect);
  if (!row || FINISHED.includes(row.status)) return;
  const changes: Partial<AgentGridRunsTable> = {
    status: 'failed',
    output: JSON.stringify(ending.output),
    error_code: ending.error.code,
    error_message: ending.error.message,
    finished_at: now,
    updated_at: now,
  };
  await updateRunRow(trx, work.workspaceId, row.id, changes);
  const write = systemWrite({
    workspaceId: work.workspaceId,
    occurredAt: now,
    actorName: 'workspace assistant',
    tool: 'update_agent_grid_run',
    defaultAction: 'update',
    causedBy: work.run.id,
  });
  const changedFields = ['status', 'output', 'error_code', 'error_message', 'finished_at'];
  await insertAuditEvents(trx, [
    auditRow(write, { targetType: 'agent_grid_run', targetId: row.id, changedFields }),
  ]);
  await insertOutboxEvents(trx, [
    outboxRow(work.workspaceId, write.requestId, now, {
      name: 'agent_grid_run.updated',
      targetType: 'agent_grid_run',
      targetId: row.id,
      data: toRun({ ...row, ...changes }),
    }),
  ]);
}
