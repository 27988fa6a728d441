import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { CostEventSchema, costKinds } from './agent-grid-schemas.ts';
import { currencyInput, idInput } from './agent-grid-shared.ts';
import type { AgentGridCostEventsTable } from './agent-grid-tables.ts';
import { recomputeRun, runTakingChildren } from './run-child.ts';
import { findToolCall, insertCostEvent, listChildren, toCostEvent } from './run-store.ts';

export const costEventRecord = defineRecordType({
  type: 'agent_grid_cost_event',
  module: 'data_agents',
  table: 'agent_grid_cost_events',
  collection: '/v1/agent-grid/cost-events',
  key: 'cost_event',
  readScope: 'data_agents:read',
  schema: CostEventSchema,
  toResource: toCostEvent,
});

// Sums of a run stay exact JavaScript integers for any realistic number of events.
const count = (description: string) => Type.Integer({ minimum: 0, maximum: 1_000_000_000_000, description });

export const createAgentGridCostEvent = defineOperation({
  name: 'create_agent_grid_cost_event',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  example: { model: 'gpt-4o-mini', tokens_in: 1200, tokens_out: 300 },
  creates: 'agent_grid_cost_event',
  summary: 'Record a cost event of a run',
  description:
    "Records what a step of an unfinished run cost (a finished run is 409 conflict): kind llm_tokens (model, tokens in and out), embedding (model, tokens in), tool or compute (units), with the cost in millionths of the run's currency. The run's token and cost totals are recomputed from its cost events in the same transaction; a queued run becomes running. Emits agent_grid_cost_event.created.",
  input: Strict({
    run_id: idInput(),
    kind: Enum(costKinds),
    model: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Required for llm_tokens and embedding.' }),
    ),
    tool_call_id: Type.Optional(idInput('The tool call of the same run this cost belongs to.')),
    tokens_in: Type.Optional(count('Prompt or embedded tokens.')),
    tokens_out: Type.Optional(count('Completion tokens (llm_tokens only).')),
    units: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12, description: 'Other metered units.' })),
    cost_micros: count('Cost in millionths of the currency unit (1 USD = 1,000,000).'),
    currency: Type.Optional(currencyInput("ISO 4217; must be the run's currency (its default).")),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/cost-events' },
  responseKey: 'cost_event',
  handler: async (ctx, input) => {
    const errors: FieldError[] = [];
    const modelled = input.kind === 'llm_tokens' || input.kind === 'embedding';
    if (modelled && !input.model) errors.push({ field: 'model', message: `is required for ${input.kind}` });
    if (input.tokens_out && input.kind !== 'llm_tokens') {
      errors.push({ field: 'tokens_out', message: 'is only for llm_tokens' });
    }
    if (errors.length) throw validationFailed(errors);
    const run = await runTakingChildren(ctx, input.run_id);
    if (input.currency && input.currency !== run.currency) {
      throw validationFailed([{ field: 'currency', message: `the run counts its cost in ${run.currency}` }]);
    }
    if (input.tool_call_id) {
      const call = await findToolCall(ctx.db, ctx.workspaceId, input.tool_call_id);
      if (!call || call.run_id !== run.id) {
        throw validationFailed([{ field: 'tool_call_id', message: 'is not a tool call of this run' }]);
      }
    }
    const row: AgentGridCostEventsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('acost'),
      run_id: run.id,
      kind: input.kind,
      model: input.model ?? null,
      tool_call_id: input.tool_call_id ?? null,
      tokens_in: input.tokens_in ?? 0,
      tokens_out: input.tokens_out ?? 0,
      units: input.units ?? 0,
      cost_micros: input.cost_micros,
      currency: run.currency,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertCostEvent(ctx.db, row);
    await recomputeRun(ctx, run, 'cost_events');
    const costEvent = toCostEvent(row);
    ctx.audit({ targetType: 'agent_grid_cost_event', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_grid_cost_event.created',
      targetType: 'agent_grid_cost_event',
      targetId: row.id,
      data: costEvent,
    });
    return { body: { cost_event: costEvent }, createdId: row.id };
  },
});

export const listAgentGridCostEvents = defineOperation({
  name: 'list_agent_grid_cost_events',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List cost events of runs',
  description:
    'Lists recorded cost events, newest first; filter by run, kind (llm_tokens, embedding, tool, compute) or model. A run carries their sums in its totals.',
  input: Strict({
    run_id: Type.Optional(idInput()),
    kind: Type.Optional(Enum(costKinds)),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/cost-events' },
  heavy: heavyFilters({ indexed: ['run_id', 'kind'], scans: ['model'] }),
  responseKey: 'cost_events',
  handler: async (ctx, input) => {
    const { limit: _l, cursor: _c, ...filters } = input;
    const page = await listChildren(
      ctx.db,
      'agent_grid_cost_events',
      ctx.workspaceId,
      filters,
      pageRequest('list_agent_grid_cost_events', input),
    );
    return { body: listBody('cost_events', { ...page, items: page.items.map(toCostEvent) }) };
  },
});
