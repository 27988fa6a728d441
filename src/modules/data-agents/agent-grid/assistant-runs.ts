// create_workspace_assistant_run: an instruction in natural language. With the operator's model configured
// it starts a run (202): the job (assistant-loop.ts) runs a bounded tool-calling loop over the tools the
// caller may use, recorded as an Agent Grid run. Without a model it answers at once with a plan only: the
// most relevant tools (ranked over their descriptions) with argument skeletons, never an invented answer.
import { Type } from '@sinclair/typebox';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation, type OperationDefinition } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { Enum, Nullable, Shape, Text } from '../../../core/resource-schema.ts';
import { runOperations } from '../../../core/run-operations.ts';
import { RunResource, toRunResource } from '../../../core/run-resource.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import type { RunsTable } from '../../../db/tables.ts';
import { RunSchema } from './agent-grid-schemas.ts';
import type { AgentGridRunsTable } from './agent-grid-tables.ts';
import { ASSISTANT_JOB, ASSISTANT_RUN_TYPE } from './assistant-loop.ts';
import { insertFinishedRun } from './assistant-store.ts';
import { modelConfigured } from './llm-client.ts';
import { FINISHED } from './run-child.ts';
import { findRun, insertRun, toRun, updateRunRow } from './run-store.ts';
import {
  argumentSkeleton,
  catalogueToolIndex,
  firstSentence,
  toolCatalogue,
  usableTools,
} from './tool-catalogue.ts';

/** Tools offered to the model per run: the best ranked for the instruction (a prompt of every tool is too long). */
const OFFERED = 24;
const PLANNED = 8;
/** Never offered: an assistant does not start assistants. */
const NEVER = new Set(['create_workspace_assistant_run']);

/** The tools the caller may use in this run: reads, and writes only with allow_writes (scopes held). */
async function offerable(ctx: OperationContext, allowWrites: boolean): Promise<OperationDefinition[]> {
  const catalogue = await toolCatalogue();
  return (await usableTools(ctx)).filter(
    (op) => catalogue.has(op.name) && !NEVER.has(op.name) && (op.kind === 'read' || allowWrites),
  );
}

const PlanStepSchema = Shape({
  tool: Text('list_invoices'),
  kind: Enum(['read', 'create', 'update', 'archive', 'action'] as const),
  description: Text('Lists invoices, newest first.'),
  scopes: Type.Array(Text('crm:read')),
  score: Type.Number({ examples: [0.62] }),
  matched_terms: Type.Array(Type.String(), { examples: [['invoice']] }),
  arguments: MapOf(Type.Unknown(), {
    description: 'A skeleton: required fields with an example or a <type> placeholder to fill in.',
    examples: [{ status: 'sent' }],
  }),
  optional_fields: Type.Array(Type.String(), { examples: [['status', 'limit']] }),
});

const AssistantRunSchema = Shape({
  id: Text(
    'run_01JDB3Y5Q0ZK8X4M2N7P9R6T3V',
    'The assistant run: the ID list_, get_ and cancel_workspace_assistant_run(s) use (the run below). The Agent Grid run recording its steps is agent_grid_run.',
  ),
  mode: Enum(['model', 'plan'] as const, {
    description:
      'model: a language model runs the tools (answer in the Agent Grid run output); plan: no model is configured, tools suggested only.',
  }),
  status: Text('queued'),
  instruction: Text('Which invoices are overdue?'),
  allow_writes: Type.Boolean(),
  plan: Nullable(Type.Array(PlanStepSchema), {
    description: 'plan mode: the suggested tool calls, best first.',
  }),
  tools_offered: Type.Array(Type.String(), { description: 'model mode: the tools the model may call.' }),
  agent_grid_run: RunSchema,
});

async function recordAgentRun(ctx: OperationContext, row: AgentGridRunsTable) {
  await insertRun(ctx.db, row);
  const run = toRun(row);
  ctx.audit({
    targetType: 'agent_grid_run',
    targetId: row.id,
    changedFields: ['input', 'metadata', 'status'],
  });
  ctx.emit({ name: 'agent_grid_run.created', targetType: 'agent_grid_run', targetId: row.id, data: run });
  return run;
}

function agentRunRow(ctx: OperationContext, fields: Partial<AgentGridRunsTable>): AgentGridRunsTable {
  return {
    workspace_id: ctx.workspaceId,
    id: newId('arun'),
    agent_id: null,
    agent_version_id: null,
    workflow_id: null,
    workflow_version_id: null,
    session_id: null,
    parent_run_id: null,
    status: 'queued',
    input: '{}',
    output: null,
    error_code: null,
    error_message: null,
    metadata: '{}',
    tool_calls: 0,
    retrieval_hits: 0,
    cost_events: 0,
    tokens_in: 0,
    tokens_out: 0,
    cost_micros: 0,
    currency: 'USD',
    started_at: null,
    finished_at: null,
    created_at: ctx.now,
    updated_at: ctx.now,
    ...fields,
  };
}

/** The run of a plan-mode call: recorded completed (result_ref: the Agent Grid run), with its audit event. */
async function finishedRun(ctx: OperationContext, input: Record<string, unknown>) {
  const row: RunsTable = {
    workspace_id: ctx.workspaceId,
    id: newId('run'),
    run_type: ASSISTANT_RUN_TYPE,
    module: 'data_agents',
    operation: 'create_workspace_assistant_run',
    job_name: ASSISTANT_JOB,
    status: 'completed',
    trigger: ctx.surface === 'worker' ? 'worker' : 'manual',
    input_summary: JSON.stringify(input),
    attempts: 0,
    queued_at: ctx.now,
    started_at: ctx.now,
    finished_at: ctx.now,
    duration_ms: 0,
    error_code: null,
    error_message: null,
    result_ref: String(input.agent_grid_run_id),
    request_id: ctx.requestId,
    credential_id: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
    updated_at: ctx.now,
  };
  await insertFinishedRun(ctx.db, row);
  ctx.audit({ targetType: 'run', targetId: row.id, action: 'start', changedFields: [] });
  return toRunResource(row);
}

export const createWorkspaceAssistantRun = defineOperation({
  name: 'create_workspace_assistant_run',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  starts: { runType: ASSISTANT_RUN_TYPE, job: ASSISTANT_JOB },
  summary: 'Ask the workspace assistant to do something',
  description:
    "Gives the workspace assistant an instruction in natural language. With the operator's language model configured (mode model) it answers 202 with a queued run: a background job lets the model call the tools this credential may use (reads only, unless allow_writes is true and the credential holds the write scopes), each call through the normal pipeline on your behalf, recorded as an Agent Grid run with its tool calls (with request_ids) and token cost events; the answer and the request_ids it relied on land in that run's output (GET /v1/agent-grid/runs/{id}, agent_grid_run.id). Without a model (mode plan) it answers 200 at once (a run recorded completed) with the most relevant tools and argument skeletons to call yourself; it never invents an answer. assistant_run.id (run_...) is the ID list_, get_ and cancel_workspace_assistant_run(s) use.",
  input: Strict({
    instruction: Type.String({ minLength: 1, maxLength: 4000, examples: ['Which invoices are overdue?'] }),
    allow_writes: Type.Optional(
      Type.Boolean({ description: 'Let the model call write tools the credential may use (default false).' }),
    ),
    max_steps: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'Model turns at most (capped by the operator).' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/assistants/workspace/runs' },
  responseKey: 'assistant_run',
  response: Shape({ assistant_run: AssistantRunSchema, run: Nullable(RunResource) }),
  handler: async (ctx, input) => {
    const allowWrites = input.allow_writes ?? false;
    const tools = await offerable(ctx, allowWrites);
    const names = new Set(tools.map((t) => t.name));
    const index = await catalogueToolIndex(ctx);
    const model = modelConfigured(ctx.config);
    const ranked = index.search(input.instruction, model ? OFFERED : PLANNED, (op) => names.has(op.name));
    const base = { instruction: input.instruction, allow_writes: allowWrites };
    if (!model) {
      const plan = ranked.map((r) => ({
        tool: r.item.name,
        kind: r.item.kind,
        description: firstSentence(r.item.description),
        scopes: [...r.item.scopes],
        score: r.score,
        matched_terms: r.matched_terms,
        ...argumentSkeleton(r.item.input),
      }));
      const agentRun = await recordAgentRun(
        ctx,
        agentRunRow(ctx, {
          status: 'completed',
          started_at: ctx.now,
          finished_at: ctx.now,
          input: JSON.stringify(base),
          output: JSON.stringify({ mode: 'plan', answer: null, plan }),
          metadata: JSON.stringify({ source: 'workspace_assistant', mode: 'plan' }),
        }),
      );
      const run = await finishedRun(ctx, { agent_grid_run_id: agentRun.id, ...base });
      const assistantRun = {
        id: run.id,
        mode: 'plan',
        status: 'completed',
        ...base,
        plan,
        tools_offered: [],
        agent_grid_run: agentRun,
      };
      return { body: { assistant_run: assistantRun, run }, status: 200, createdId: run.id };
    }
    const offered = ranked.map((r) => r.item.name);
    const maxSteps = Math.min(input.max_steps ?? ctx.config.assistantMaxSteps, ctx.config.assistantMaxSteps);
    const row = agentRunRow(ctx, {
      input: JSON.stringify(base),
      metadata: JSON.stringify({ source: 'workspace_assistant', mode: 'model', model: ctx.config.llmModel! }),
    });
    const agentRun = await recordAgentRun(ctx, row);
    const run = await ctx.startRun({
      inputSummary: { agent_grid_run_id: row.id, ...base },
      payload: {
        agent_grid_run_id: row.id,
        instruction: input.instruction,
        allow_writes: allowWrites,
        tools: offered,
        scopes: [...ctx.scopes],
        max_steps: maxSteps,
      },
    });
    const assistantRun = {
      id: run.id,
      mode: 'model',
      status: 'queued',
      ...base,
      plan: null,
      tools_offered: offered,
      agent_grid_run: agentRun,
    };
    return { body: { assistant_run: assistantRun, run }, createdId: run.id };
  },
  // A retry with the same idempotency_key answers the assistant run as it is now.
  replay: async (ctx, run) => {
    const agentRunId = String((run.input as Record<string, unknown>).agent_grid_run_id ?? '');
    const row = await findRun(ctx.db, ctx.workspaceId, agentRunId);
    if (!row) throw notFound('agent grid run');
    const input = JSON.parse(row.input) as { instruction: string; allow_writes: boolean };
    const output = row.output ? (JSON.parse(row.output) as { plan?: unknown[] }) : {};
    const mode = output.plan ? 'plan' : 'model';
    return {
      assistant_run: {
        id: String(run.id),
        mode,
        status: row.status,
        instruction: input.instruction,
        allow_writes: input.allow_writes,
        plan: output.plan ?? null,
        tools_offered: [],
        agent_grid_run: toRun(row),
      },
      run,
    };
  },
});

const generic = runOperations({
  module: 'data_agents',
  runType: ASSISTANT_RUN_TYPE,
  readScope: 'data_agents:read',
  writeScope: 'data_agents:write',
  restCollection: '/v1/assistants/workspace/runs',
  noun: 'workspace assistant run',
});

/** The generic cancel, which also ends the Agent Grid run the assistant was recording (same transaction). */
const cancelAssistantRun: OperationDefinition = {
  ...generic.cancel,
  description:
    'Cancels a queued or running workspace assistant run: the run and the Agent Grid run recording it are canceled at once, and the model loop stops before its next step (a tool call already made stays recorded). A run that already finished answers 409 conflict.',
  handler: async (ctx, input) => {
    const result = await generic.cancel.handler(ctx, input);
    const run = result.body.run as { input: Record<string, unknown> };
    const agentRun = await findRun(
      ctx.db,
      ctx.workspaceId,
      String(run.input.agent_grid_run_id ?? ''),
      ctx.dialect,
    );
    if (agentRun && !FINISHED.includes(agentRun.status)) {
      const changes = { status: 'canceled' as const, finished_at: ctx.now, updated_at: ctx.now };
      await updateRunRow(ctx.db, ctx.workspaceId, agentRun.id, changes);
      const data = toRun({ ...agentRun, ...changes });
      ctx.audit({
        targetType: 'agent_grid_run',
        targetId: agentRun.id,
        changedFields: ['status', 'finished_at'],
      });
      ctx.emit({ name: 'agent_grid_run.updated', targetType: 'agent_grid_run', targetId: agentRun.id, data });
    }
    return result;
  },
};

export const assistantRunOperations = [
  createWorkspaceAssistantRun,
  generic.get,
  generic.list,
  cancelAssistantRun,
];
