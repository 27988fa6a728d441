// execute_data_agent_recommendation (MCP-only): runs an approved recommendation's action through the
// pipeline with the caller's credential, exactly as if the caller called the tool.
// Order of work (SQLite has one writer, and the action call opens its own transaction):
//   1. this call's transaction claims the recommendation (approved -> executing, with this request's ID
//      and the action call's request ID, minted now) and commits; a concurrent execute gets 409;
//   2. after the commit, the action runs on the caller's behalf, with the recommendation's ID as its
//      idempotency key (a create retried after a crash replays instead of creating twice);
//   3. its request_id, HTTP status and body (or error) are stored: executed or failed, audited and emitted.
// An execute of an executed or failed recommendation returns the stored outcome and runs nothing.
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { auditRow, insertAuditEvents } from '../../../core/audit.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation, type OperationDefinition } from '../../../core/define-operation.ts';
import { fail, notFound, toEnvelope, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { insertOutboxEvents, outboxRow } from '../../../core/outbox.ts';
import { Strict } from '../../../core/schema.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentRecommendationsTable } from './governed-tables.ts';
import {
  claimExecution,
  findRecommendation,
  finishExecution,
  toRecommendation,
} from './recommendation-store.ts';
import { checkAction, recommendationStatusEvent } from './recommendations.ts';
import { RecommendationSchema } from './records-schemas.ts';
import { statusConflict } from './records-store.ts';

/** A claim older than this was left by a process that stopped mid-execution: another execute may take it. */
const STALE_CLAIM_MS = 5 * 60_000;
/** Failures of the caller's permission: the recommendation stays approved for someone who may run it. */
const PERMISSION_CODES = new Set(['missing_required_scope', 'module_not_enabled', 'workspace_not_found']);

/** The pipeline's module and scope checks, for the action tool and this caller, before anything is claimed. */
function checkCallerMayRun(ctx: OperationContext, op: OperationDefinition): void {
  if (!ctx.enabledModule(op.module)) {
    throw fail('module_not_enabled', {
      message: `The ${op.module} module is not enabled for this workspace.`,
    });
  }
  const missing = op.scopes.filter((scope) => !ctx.scopes.has(scope));
  if (op.scopeMode === 'all' ? missing.length > 0 : missing.length === op.scopes.length) {
    throw fail('missing_required_scope', {
      required_scope: missing[0],
      message: `The action ${op.name} requires the scope ${missing[0]}, which this credential lacks.`,
    });
  }
}

export const executeRecommendation = defineOperation({
  name: 'execute_data_agent_recommendation',
  module: 'data_agents',
  scopes: ['data_agents:execute'],
  kind: 'action',
  // Executing again answers the stored outcome and never repeats the action.
  idempotent: true,
  dryRun: true,
  summary: "Run an approved recommendation's action",
  description:
    "Runs an approved recommendation's action (its tool and arguments) on your behalf: your credential must hold the tool's scopes and its module must be enabled, else the same 403 and the recommendation stays approved. The call's request_id, status and result are stored; status becomes executed (or failed when the action fails). Executing again returns the stored outcome and never repeats the action. dry_run true previews a tool that supports dry_run and changes nothing. MCP-only workflow step. Emits data_agent_recommendation.status_changed.",
  input: Strict({ recommendation_id: Type.String({ minLength: 1, maxLength: 255 }) }),
  rest: null,
  responseKey: 'recommendation',
  response: Type.Object(
    {
      recommendation: RecommendationSchema,
      preview: Type.Optional(
        Type.Object(
          {
            request_id: Type.String(),
            status: Type.Integer(),
            result: Type.Unknown(),
          },
          {
            additionalProperties: false,
            description: 'dry_run: the action tool previewed, nothing written.',
          },
        ),
      ),
    },
    { additionalProperties: false },
  ),
  handler: async (ctx, input) => {
    const row = await findRecommendation(ctx.db, ctx.workspaceId, input.recommendation_id);
    if (!row) throw notFound('recommendation');
    const target = { targetType: 'data_agent_recommendation', targetId: row.id };
    const args = JSON.parse(row.action_arguments) as Record<string, unknown>;
    const action = { tool: row.action_tool, arguments: args };

    if (ctx.dryRun) {
      if (row.status !== 'proposed' && row.status !== 'approved') {
        throw statusConflict(
          'recommendation',
          row.status,
          'only a proposed or approved one can be previewed',
        );
      }
      const op = checkAction(ctx, action);
      if (!op.dryRun) {
        throw validationFailed([
          { field: 'dry_run', message: `${op.name} does not support dry_run: it cannot be previewed` },
        ]);
      }
      checkCallerMayRun(ctx, op);
      const recommendation = toRecommendation(row);
      return {
        body: { recommendation },
        afterCommit: async () => {
          const requestId = newId('req');
          const outcome = await ctx.callOnBehalf(
            op.name,
            { ...args, dry_run: true },
            { actorName: 'data_agent_recommendation', requestId },
          );
          const preview = {
            request_id: requestId,
            status: outcome.ok ? outcome.status : outcome.error.status,
            result: outcome.ok ? outcome.body : toEnvelope(outcome.error, requestId, ctx.config.publicUrl),
          };
          return { recommendation, preview, dry_run: true };
        },
      };
    }

    if (row.status === 'executed' || row.status === 'failed') {
      ctx.audit({ ...target, action: 'execute', changedFields: [] });
      return { body: { recommendation: toRecommendation(row) } };
    }
    const stale =
      row.status === 'executing' &&
      Date.parse(ctx.now) - Date.parse(row.execution_started_at ?? ctx.now) > STALE_CLAIM_MS;
    if (row.status !== 'approved' && !stale) {
      throw statusConflict('recommendation', row.status, 'only an approved recommendation can be executed');
    }
    const op = checkAction(ctx, action);
    checkCallerMayRun(ctx, op);
    // The action's request ID is minted now and stored with the claim: a claim left by a stopped process
    // still names the call to look for (GET /admin/v1/requests/{id}).
    const actionRequestId = newId('req');
    const claimed = await claimExecution(
      ctx.db,
      ctx.workspaceId,
      row.id,
      { status: row.status, heldBy: stale ? row.execution_request_id : null },
      { executeRequestId: ctx.requestId, actionRequestId, now: ctx.now },
    );
    if (!claimed) {
      const current = await findRecommendation(ctx.db, ctx.workspaceId, row.id);
      throw statusConflict(
        'recommendation',
        current?.status ?? 'gone',
        'only an approved recommendation can be executed',
      );
    }
    const executing: DataAgentRecommendationsTable = {
      ...row,
      status: 'executing',
      execute_request_id: ctx.requestId,
      execution_request_id: actionRequestId,
      execution_started_at: ctx.now,
      execution_status: null,
      execution_result: null,
      executed_at: null,
      updated_at: ctx.now,
    };
    ctx.audit({ ...target, action: 'execute', changedFields: ['status'] });
    ctx.emit(recommendationStatusEvent(toRecommendation(executing)));
    return {
      body: { recommendation: toRecommendation(executing) },
      afterCommit: (db) => runAction(ctx, db, executing, op),
    };
  },
});

/** Step 2 and 3: the action call and its recorded outcome. Never throws: the outcome is the answer. */
async function runAction(
  ctx: OperationContext,
  db: Kysely<DB>,
  row: DataAgentRecommendationsTable,
  op: OperationDefinition,
): Promise<Record<string, unknown>> {
  const args = JSON.parse(row.action_arguments) as Record<string, unknown>;
  const actionRequestId = row.execution_request_id!;
  const outcome = await ctx.callOnBehalf(op.name, args, {
    // Reads take no idempotency key; every write accepts one (creates honour it).
    ...(op.kind === 'read' ? {} : { idempotencyKey: row.id }),
    actorName: 'data_agent_recommendation',
    requestId: actionRequestId,
  });
  const finishedAt = ctx.clock.now().toISOString();
  const refused = !outcome.ok && PERMISSION_CODES.has(outcome.error.code);
  const result = outcome.ok ? outcome.body : toEnvelope(outcome.error, actionRequestId, ctx.config.publicUrl);
  const changes: Partial<DataAgentRecommendationsTable> = {
    status: outcome.ok ? 'executed' : refused ? 'approved' : 'failed',
    execution_status: outcome.ok ? outcome.status : outcome.error.status,
    execution_result: JSON.stringify(result),
    executed_at: finishedAt,
    updated_at: finishedAt,
  };
  const finished = { ...row, ...changes };
  const recommendation = toRecommendation(finished);
  try {
    await db.transaction().execute(async (trx) => {
      if (!(await finishExecution(trx, row.workspace_id, row.id, actionRequestId, changes))) return;
      const write = {
        workspaceId: row.workspace_id,
        requestId: ctx.requestId,
        occurredAt: finishedAt,
        actor: ctx.actor,
        surface: ctx.surface,
        tool: 'execute_data_agent_recommendation',
        defaultAction: 'action',
      };
      const entry = {
        targetType: 'data_agent_recommendation',
        targetId: row.id,
        changedFields: ['status', 'execution'],
      };
      await insertAuditEvents(trx, [auditRow(write, { ...entry, action: `execution_${changes.status}` })]);
      await insertOutboxEvents(trx, [
        outboxRow(row.workspace_id, ctx.requestId, finishedAt, recommendationStatusEvent(recommendation)),
      ]);
    });
  } catch {
    // The claim stays executing with this action's request ID; after STALE_CLAIM_MS another execute takes it
    // over, and the idempotency key keeps a create from running twice.
    return { recommendation: toRecommendation(row) };
  }
  return { recommendation };
}
