import { Type } from '@sinclair/typebox';
import { inputFields, requireSomeField } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { type Decision, findDecision, insertDecision, listDecisions, toDecision } from './decision-store.ts';
import type { DataAgentDecisionsTable } from './governed-tables.ts';
import { checkRefs, listedRefs, refInput, refListInput, refsJson } from './object-refs.ts';
import { DECISION_STATUSES, DecisionSchema } from './records-schemas.ts';
import { moveFrom, statusConflict } from './records-store.ts';

export const decisionRecord = defineRecordType({
  type: 'data_agent_decision',
  module: 'data_agents',
  table: 'data_agent_decisions',
  collection: '/v1/data-agents/decisions',
  key: 'decision',
  readScope: 'data_agents:read',
  schema: DecisionSchema,
  toResource: toDecision,
});

const idInput = Type.String({ minLength: 1, maxLength: 255 });
const noteInput = Type.String({ minLength: 1, maxLength: 5_000 });
const fields = {
  title: Type.String({ minLength: 1, maxLength: 500 }),
  context: Type.String({
    minLength: 1,
    maxLength: 20_000,
    description: 'The situation that needs a decision.',
  }),
  options: Type.Array(
    Strict({
      key: Type.String({ minLength: 1, maxLength: 100 }),
      description: Type.String({ minLength: 1, maxLength: 5_000 }),
    }),
    { minItems: 1, maxItems: 20, description: 'The options considered, each with a unique key.' },
  ),
  chosen_option: Type.String({ minLength: 1, maxLength: 100, description: 'The key of the chosen option.' }),
  rationale: Type.String({ minLength: 1, maxLength: 20_000 }),
  related_objects: refListInput('Records the decision concerns or rests on ({type, id}, each must exist).'),
};

/** Option keys are unique and the chosen option is one of them. */
function checkOptions(options: { key: string }[], chosen: string | null | undefined, chosenSent: boolean) {
  const seen = new Set<string>();
  for (const [i, option] of options.entries()) {
    if (seen.has(option.key)) {
      throw validationFailed([{ field: `options[${i}].key`, message: 'repeats an earlier option key' }]);
    }
    seen.add(option.key);
  }
  if (chosen != null && !seen.has(chosen)) {
    const field = chosenSent ? 'chosen_option' : 'options';
    throw validationFailed([{ field, message: `chosen_option "${chosen}" is not one of the option keys` }]);
  }
}

/** The event of a decision's move to another status; data is the decision after it. */
export const decisionStatusEvent = (decision: Decision) => ({
  name: 'data_agent_decision.status_changed',
  targetType: 'data_agent_decision',
  targetId: decision.id,
  data: decision,
});

export const createDecision = defineOperation({
  name: 'create_data_agent_decision',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_decision',
  summary: 'Propose a data decision',
  description:
    'Records a proposed decision (status proposed): its context, the options considered, the chosen option, a rationale, the subject it decides ({type, id}: approving a decision about a dataset version approves that version) and related records. supersedes_id names an earlier proposed or approved decision that this one replaces once approved. Nothing changes until approve_data_agent_decision. Emits data_agent_decision.created.',
  input: Strict({
    ...fields,
    chosen_option: Type.Optional(fields.chosen_option),
    rationale: Type.Optional(fields.rationale),
    subject: Type.Optional(refInput('What the decision is about (a dataset version, a job, any record).')),
    related_objects: Type.Optional(fields.related_objects),
    supersedes_id: Type.Optional(idInput),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/decisions' },
  responseKey: 'decision',
  handler: async (ctx, input) => {
    checkOptions(input.options, input.chosen_option, true);
    await checkRefs(ctx, [
      ...(input.subject ? [{ field: 'subject', ref: input.subject }] : []),
      ...listedRefs('related_objects', input.related_objects),
    ]);
    if (input.supersedes_id) {
      const earlier = await findDecision(ctx.db, ctx.workspaceId, input.supersedes_id);
      if (!earlier) throw notFound('decision');
      if (earlier.status !== 'proposed' && earlier.status !== 'approved') {
        throw statusConflict(
          'superseded decision',
          earlier.status,
          'only a proposed or approved one can be superseded',
        );
      }
    }
    const row: DataAgentDecisionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('dad'),
      title: input.title,
      context: input.context,
      options: JSON.stringify(input.options.map(({ key, description }) => ({ key, description }))),
      chosen_option: input.chosen_option ?? null,
      rationale: input.rationale ?? null,
      subject_type: input.subject?.type ?? null,
      subject_id: input.subject?.id ?? null,
      related_objects: refsJson(input.related_objects),
      supersedes_id: input.supersedes_id ?? null,
      superseded_by_id: null,
      status: 'proposed',
      decision_note: null,
      decided_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertDecision(ctx.db, row);
    const decision = toDecision(row);
    ctx.audit({ targetType: 'data_agent_decision', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'data_agent_decision.created',
      targetType: 'data_agent_decision',
      targetId: row.id,
      data: decision,
    });
    return { body: { decision }, createdId: row.id };
  },
});

export const listDecisionsOperation = defineOperation({
  name: 'list_data_agent_decisions',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List data decisions',
  description:
    'Lists decisions, newest first, by status (proposed, approved, rejected, superseded) and/or subject (subject_type with subject_id: the decisions about one dataset version or record). Use it to find what was decided about an object, and why.',
  input: Strict({
    status: Type.Optional(Type.Unsafe<string>({ type: 'string', enum: [...DECISION_STATUSES] })),
    subject_type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    subject_id: Type.Optional(idInput),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/decisions' },
  heavy: heavyFilters({ indexed: ['status', 'subject_type'] }),
  responseKey: 'decisions',
  handler: async (ctx, input) => {
    if (input.subject_id && !input.subject_type) {
      throw validationFailed([{ field: 'subject_type', message: 'is required with subject_id' }]);
    }
    const page = await listDecisions(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_decisions', input),
    );
    return { body: listBody('decisions', page) };
  },
});

const EDITABLE = ['title', 'context', 'options', 'chosen_option', 'rationale', 'related_objects'] as const;

export const updateDecision = defineOperation({
  name: 'update_data_agent_decision',
  module: 'data_agents',
  scopes: ['data_agents:write', 'data_agents:execute'],
  kind: 'update',
  summary: 'Edit or reject a proposed decision',
  description:
    'Edits a proposed decision (title, context, options, chosen_option, rationale, related_objects; lists are replaced) and/or rejects it (status rejected, with a note). Only a proposed decision changes: any other status is 409 conflict naming it. Approve with approve_data_agent_decision. Emits data_agent_decision.updated, or data_agent_decision.status_changed when rejected.',
  input: Strict({
    decision_id: idInput,
    title: Type.Optional(fields.title),
    context: Type.Optional(fields.context),
    options: Type.Optional(fields.options),
    chosen_option: Type.Optional(Type.Union([fields.chosen_option, Type.Null()])),
    rationale: Type.Optional(Type.Union([fields.rationale, Type.Null()])),
    related_objects: Type.Optional(fields.related_objects),
    status: Type.Optional(Type.Literal('rejected')),
    note: Type.Optional(noteInput),
  }),
  rest: { method: 'PATCH', path: '/v1/data-agents/decisions/{decision_id}' },
  responseKey: 'decision',
  handler: async (ctx, input) => {
    requireSomeField(input, [...EDITABLE, 'status']);
    if (input.note !== undefined && input.status === undefined) {
      throw validationFailed([{ field: 'note', message: 'goes with status rejected' }]);
    }
    const row = await findDecision(ctx.db, ctx.workspaceId, input.decision_id);
    if (!row) throw notFound('decision');
    if (row.status !== 'proposed') {
      throw statusConflict('decision', row.status, 'only a proposed decision can be edited or rejected');
    }
    const options = input.options ?? JSON.parse(row.options);
    const chosen = input.chosen_option !== undefined ? input.chosen_option : row.chosen_option;
    checkOptions(options, chosen, input.chosen_option !== undefined);
    await checkRefs(ctx, listedRefs('related_objects', input.related_objects));
    const changes: Partial<DataAgentDecisionsTable> = { updated_at: ctx.now };
    if (input.title !== undefined) changes.title = input.title;
    if (input.context !== undefined) changes.context = input.context;
    if (input.options !== undefined) changes.options = JSON.stringify(options);
    if (input.chosen_option !== undefined) changes.chosen_option = input.chosen_option;
    if (input.rationale !== undefined) changes.rationale = input.rationale;
    if (input.related_objects !== undefined) changes.related_objects = refsJson(input.related_objects);
    if (input.status === 'rejected') {
      Object.assign(changes, { status: 'rejected', decision_note: input.note ?? null, decided_at: ctx.now });
    }
    if (!(await moveFrom(ctx.db, 'data_agent_decisions', ctx.workspaceId, row.id, ['proposed'], changes))) {
      const now = await findDecision(ctx.db, ctx.workspaceId, row.id);
      throw statusConflict(
        'decision',
        now?.status ?? 'gone',
        'only a proposed decision can be edited or rejected',
      );
    }
    const decision = toDecision({ ...row, ...changes });
    const changed = [...EDITABLE, 'status'].filter(
      (f) => (input as Record<string, unknown>)[f] !== undefined,
    );
    ctx.audit({
      targetType: 'data_agent_decision',
      targetId: row.id,
      changedFields: changed,
      ...(input.status ? { action: 'reject' } : {}),
    });
    ctx.emit(
      input.status
        ? decisionStatusEvent(decision)
        : {
            name: 'data_agent_decision.updated',
            targetType: 'data_agent_decision',
            targetId: row.id,
            data: decision,
          },
    );
    return { body: { decision } };
  },
});
