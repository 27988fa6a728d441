import { Type } from '@sinclair/typebox';
import { inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { MapOf, Strict, toFieldErrors } from '../../../core/schema.ts';
import type { DataAgentRecommendationsTable } from './governed-tables.ts';
import { checkRefs, listedRefs, refListInput, refsJson } from './object-refs.ts';
import {
  findRecommendation,
  insertRecommendation,
  listRecommendations,
  type Recommendation,
  toRecommendation,
} from './recommendation-store.ts';
import { RECOMMENDATION_STATUSES, RecommendationSchema } from './records-schemas.ts';
import { moveFrom, statusConflict } from './records-store.ts';

export const recommendationRecord = defineRecordType({
  type: 'data_agent_recommendation',
  module: 'data_agents',
  table: 'data_agent_recommendations',
  collection: '/v1/data-agents/recommendations',
  key: 'recommendation',
  readScope: 'data_agents:read',
  schema: RecommendationSchema,
  toResource: toRecommendation,
});

/** Tools a recommendation cannot name: executing one would execute recommendations. */
const NOT_RECOMMENDABLE = new Set(['execute_data_agent_recommendation']);
/** Inputs the execute step supplies itself. */
const CONTROL_INPUTS = ['idempotency_key', 'dry_run'];

const actionInput = Strict(
  {
    tool: Type.String({
      minLength: 1,
      maxLength: 100,
      examples: ['create_task'],
      description: 'A registry tool name (tools/list).',
    }),
    arguments: MapOf(Type.Unknown(), {
      examples: [{ title: 'Call the owners of stalled deals' }],
      description: "The tool's input, as its inputSchema describes it.",
    }),
  },
  { description: 'The tool call that carries the recommendation out.' },
);

/** The action names a registered tool and its arguments validate against that tool's input schema. */
export function checkAction(
  ctx: OperationContext,
  action: { tool: string; arguments: Record<string, unknown> },
) {
  const op = ctx.operationNamed(action.tool);
  if (!op || NOT_RECOMMENDABLE.has(action.tool)) {
    throw validationFailed([
      { field: 'action.tool', message: `"${action.tool}" is not a tool that can be recommended` },
    ]);
  }
  const control = CONTROL_INPUTS.filter((name) => name in action.arguments);
  if (control.length) {
    throw validationFailed(
      control.map((name) => ({
        field: `action.arguments.${name}`,
        message: 'is set by execute_data_agent_recommendation, not stored',
      })),
    );
  }
  const validate = op.validators().strict;
  if (!validate(structuredClone(action.arguments))) {
    throw validationFailed(
      toFieldErrors(validate.errors).map(({ field, message }) => ({
        field: field === '(body)' ? 'action.arguments' : `action.arguments.${field}`,
        message,
      })),
      `The arguments do not match the input schema of ${action.tool}.`,
    );
  }
  return op;
}

const fields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  rationale: Type.String({ minLength: 1, maxLength: 20_000 }),
  evidence: refListInput('The insights, queries and records it rests on ({type, id}, each must exist).'),
};

const statusEvent = (recommendation: Recommendation) => ({
  name: 'data_agent_recommendation.status_changed',
  targetType: 'data_agent_recommendation',
  targetId: recommendation.id,
  data: recommendation,
});

export { statusEvent as recommendationStatusEvent };

export const createRecommendation = defineOperation({
  name: 'create_data_agent_recommendation',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_recommendation',
  summary: 'Propose a recommendation',
  description:
    'Proposes a recommendation (status proposed): title, rationale, evidence (insights, queries: {type, id}) and an action, a registry tool with its arguments. The tool must exist and the arguments must validate against its input schema now (validation_failed under action.arguments...). Nothing runs until it is approved (update_data_agent_recommendation) and executed (execute_data_agent_recommendation). Emits data_agent_recommendation.created.',
  input: Strict({
    ...fields,
    evidence: Type.Optional(fields.evidence),
    action: actionInput,
  }),
  rest: { method: 'POST', path: '/v1/data-agents/recommendations' },
  responseKey: 'recommendation',
  handler: async (ctx, input) => {
    checkAction(ctx, input.action);
    await checkRefs(ctx, listedRefs('evidence', input.evidence));
    const row: DataAgentRecommendationsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('dar'),
      title: input.title,
      rationale: input.rationale,
      evidence: refsJson(input.evidence),
      action_tool: input.action.tool,
      action_arguments: JSON.stringify(input.action.arguments),
      status: 'proposed',
      decision_note: null,
      decided_at: null,
      execute_request_id: null,
      execution_request_id: null,
      execution_started_at: null,
      execution_status: null,
      execution_result: null,
      executed_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertRecommendation(ctx.db, row);
    const recommendation = toRecommendation(row);
    const target = { targetType: 'data_agent_recommendation', targetId: row.id };
    ctx.audit({ ...target, changedFields: inputFields(input) });
    ctx.emit({ name: 'data_agent_recommendation.created', ...target, data: recommendation });
    return { body: { recommendation }, createdId: row.id };
  },
});

export const listRecommendationsOperation = defineOperation({
  name: 'list_data_agent_recommendations',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List recommendations',
  description:
    "Lists recommendations, newest first, by status (proposed, approved, rejected, executing, executed, failed) and/or the tool their action calls. Each shows its action and, once executed, the action call's request_id, status and result.",
  input: Strict({
    status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...RECOMMENDATION_STATUSES] })),
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/recommendations' },
  heavy: heavyFilters({ indexed: ['status', 'tool'] }),
  responseKey: 'recommendations',
  handler: async (ctx, input) => {
    const page = await listRecommendations(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_recommendations', input),
    );
    return { body: listBody('recommendations', page) };
  },
});

const EDITABLE = ['title', 'rationale', 'evidence', 'action'] as const;

export const updateRecommendation = defineOperation({
  name: 'update_data_agent_recommendation',
  module: 'data_agents',
  scopes: ['data_agents:write', 'data_agents:execute'],
  kind: 'update',
  summary: 'Edit, approve or reject a recommendation',
  description:
    'Edits a proposed recommendation (title, rationale, evidence, action: revalidated against the tool) and/or decides it: status approved (it may then be executed) or rejected, with a note. Only a proposed recommendation changes: any other status is 409 conflict naming it. Emits data_agent_recommendation.updated, or data_agent_recommendation.status_changed when decided.',
  input: Strict({
    recommendation_id: Type.String({ minLength: 1, maxLength: 255 }),
    title: Type.Optional(fields.title),
    rationale: Type.Optional(fields.rationale),
    evidence: Type.Optional(fields.evidence),
    action: Type.Optional(actionInput),
    status: Type.Optional(
      Type.Unsafe<'approved' | 'rejected'>({ type: 'string', enum: ['approved', 'rejected'] }),
    ),
    note: Type.Optional(Type.String({ minLength: 1, maxLength: 5_000 })),
  }),
  rest: { method: 'PATCH', path: '/v1/data-agents/recommendations/{recommendation_id}' },
  responseKey: 'recommendation',
  handler: async (ctx, input) => {
    requireSomeField(input, [...EDITABLE, 'status']);
    if (input.note !== undefined && input.status === undefined) {
      throw validationFailed([{ field: 'note', message: 'goes with status approved or rejected' }]);
    }
    const row = await findRecommendation(ctx.db, ctx.workspaceId, input.recommendation_id);
    if (!row) throw notFound('recommendation');
    const needs = 'only a proposed recommendation can be edited, approved or rejected';
    if (row.status !== 'proposed') throw statusConflict('recommendation', row.status, needs);
    if (input.action) checkAction(ctx, input.action);
    await checkRefs(ctx, listedRefs('evidence', input.evidence));
    const changes: Partial<DataAgentRecommendationsTable> = { updated_at: ctx.now };
    if (input.title !== undefined) changes.title = input.title;
    if (input.rationale !== undefined) changes.rationale = input.rationale;
    if (input.evidence !== undefined) changes.evidence = refsJson(input.evidence);
    if (input.action !== undefined) {
      changes.action_tool = input.action.tool;
      changes.action_arguments = JSON.stringify(input.action.arguments);
    }
    if (input.status)
      Object.assign(changes, {
        status: input.status,
        decision_note: input.note ?? null,
        decided_at: ctx.now,
      });
    if (
      !(await moveFrom(ctx.db, 'data_agent_recommendations', ctx.workspaceId, row.id, ['proposed'], changes))
    ) {
      const current = await findRecommendation(ctx.db, ctx.workspaceId, row.id);
      throw statusConflict('recommendation', current?.status ?? 'gone', needs);
    }
    const recommendation = toRecommendation({ ...row, ...changes });
    const target = { targetType: 'data_agent_recommendation', targetId: row.id };
    const changed = [...EDITABLE, 'status'].filter(
      (f) => (input as Record<string, unknown>)[f] !== undefined,
    );
    ctx.audit({
      ...target,
      changedFields: changed,
      ...(input.status ? { action: input.status === 'approved' ? 'approve' : 'reject' } : {}),
    });
    ctx.emit(
      input.status
        ? statusEvent(recommendation)
        : { name: 'data_agent_recommendation.updated', ...target, data: recommendation },
    );
    return { body: { recommendation } };
  },
});
