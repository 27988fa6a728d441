// approve_data_agent_decision (MCP-only) and the effects of an approval by subject type: approving a
// decision about a dataset version approves that version. The code owning a subject type registers its
// effect (onDecisionApproved); it runs in the approval's transaction, so both commit or neither does.
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { Strict } from '../../../core/schema.ts';
import { type Decision, findDecision, toDecision } from './decision-store.ts';
import { decisionStatusEvent } from './decisions.ts';
import { moveFrom, statusConflict } from './records-store.ts';

export type DecisionApprovalEffect = (
  ctx: OperationContext,
  subjectId: string,
  decision: Decision,
) => Promise<void>;

const approvalEffects = new Map<string, DecisionApprovalEffect>();

/**
 * Registers what approving a decision about a record of `subjectType` does (dataset versions: mark the
 * version approved). The effect writes through ctx.db, audits and emits like a handler; throwing (a 409 when
 * the subject cannot be approved) rolls the approval back.
 */
export function onDecisionApproved(subjectType: string, effect: DecisionApprovalEffect): void {
  if (approvalEffects.has(subjectType))
    throw new Error(`An approval effect for ${subjectType} is registered`);
  approvalEffects.set(subjectType, effect);
}

/** For tests: removes a registered effect. */
export function removeDecisionApprovalEffect(subjectType: string): void {
  approvalEffects.delete(subjectType);
}

const LIVE = ['proposed', 'approved'];

export const approveDecision = defineOperation({
  name: 'approve_data_agent_decision',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'action',
  summary: 'Approve a proposed decision',
  description:
    'Approves a proposed decision with an optional note: status approved, and its effect applies in the same transaction (a decision about a dataset version marks that version approved; the decision it supersedes becomes superseded). Any status but proposed is 409 conflict naming it. MCP-only workflow step. Emits data_agent_decision.status_changed (for each decision that moved).',
  input: Strict({
    decision_id: Type.String({ minLength: 1, maxLength: 255 }),
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 5_000 })),
  }),
  rest: null,
  responseKey: 'decision',
  handler: async (ctx, input) => {
    const row = await findDecision(ctx.db, ctx.workspaceId, input.decision_id);
    if (!row) throw notFound('decision');
    const needs = 'only a proposed decision can be approved';
    if (row.status !== 'proposed') throw statusConflict('decision', row.status, needs);
    const changes = {
      status: 'approved',
      decision_note: input.note ?? null,
      decided_at: ctx.now,
      updated_at: ctx.now,
    };
    if (!(await moveFrom(ctx.db, 'data_agent_decisions', ctx.workspaceId, row.id, ['proposed'], changes))) {
      const current = await findDecision(ctx.db, ctx.workspaceId, row.id);
      throw statusConflict('decision', current?.status ?? 'gone', needs);
    }
    const decision = toDecision({ ...row, ...changes });
    ctx.audit({
      targetType: 'data_agent_decision',
      targetId: row.id,
      action: 'approve',
      changedFields: ['status', 'decision_note'],
    });
    ctx.emit(decisionStatusEvent(decision));

    if (row.supersedes_id) {
      const earlier = await findDecision(ctx.db, ctx.workspaceId, row.supersedes_id);
      const superseded = { status: 'superseded', superseded_by_id: row.id, updated_at: ctx.now };
      if (
        !earlier ||
        !(await moveFrom(ctx.db, 'data_agent_decisions', ctx.workspaceId, earlier.id, LIVE, superseded))
      ) {
        const status = (await findDecision(ctx.db, ctx.workspaceId, row.supersedes_id))?.status ?? 'gone';
        throw statusConflict(
          'superseded decision',
          status,
          'only a proposed or approved one can be superseded',
        );
      }
      ctx.audit({
        targetType: 'data_agent_decision',
        targetId: earlier.id,
        action: 'supersede',
        changedFields: ['status', 'superseded_by_id'],
      });
      ctx.emit(decisionStatusEvent(toDecision({ ...earlier, ...superseded })));
    }

    const effect = row.subject_type ? approvalEffects.get(row.subject_type) : undefined;
    if (effect && row.subject_id) await effect(ctx, row.subject_id, decision);
    return { body: { decision } };
  },
});
