import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { uniquely } from '../../../core/db-errors.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { type FieldError, notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { agentStatuses, triggerTypes, WorkflowSchema } from './agent-grid-schemas.ts';
import { idInput, keyInput } from './agent-grid-shared.ts';
import type { AgentWorkflowsTable } from './agent-grid-tables.ts';
import { findAgentByKey } from './agent-store.ts';
import {
  checkSteps,
  checkTrigger,
  type StepEnvironment,
  type StepInput,
  stepsInput,
  type TriggerInput,
  triggerInput,
} from './workflow-steps.ts';
import {
  findWorkflow,
  findWorkflowByKey,
  insertWorkflow,
  listWorkflows,
  toWorkflow,
  updateWorkflowRow,
} from './workflow-store.ts';

export const workflowRecord = defineRecordType({
  type: 'agent_workflow',
  module: 'data_agents',
  table: 'agent_workflows',
  collection: '/v1/agent-grid/workflows',
  key: 'workflow',
  readScope: 'data_agents:read',
  schema: WorkflowSchema,
  toResource: toWorkflow,
});

function stepEnvironment(ctx: OperationContext): StepEnvironment {
  return {
    toolInputs: (name) => {
      const op = ctx.operationNamed(name);
      return op?.mcp ? Object.keys(op.input.properties) : undefined;
    },
    agentVersions: async (key) => {
      const agent = await findAgentByKey(ctx.db, ctx.workspaceId, key);
      return agent && { status: agent.status, latest: Number(agent.latest_version) };
    },
  };
}

/** The stored trigger and steps as JSON text; validation_failed naming every field at fault. */
async function checkedDefinition(
  ctx: OperationContext,
  input: { trigger?: TriggerInput; steps?: readonly StepInput[] },
) {
  const errors: FieldError[] = [];
  let trigger: string | undefined;
  let triggerType: AgentWorkflowsTable['trigger_type'] | undefined;
  let steps: string | undefined;
  if (input.trigger) {
    const checked = checkTrigger(input.trigger, (name) => ctx.eventTypes.has(name));
    errors.push(...checked.errors);
    trigger = JSON.stringify(checked.trigger);
    triggerType = checked.trigger.type;
  }
  if (input.steps) {
    const checked = await checkSteps(input.steps, stepEnvironment(ctx));
    errors.push(...checked.errors);
    steps = JSON.stringify(checked.steps);
  }
  if (errors.length) throw validationFailed(errors);
  return { trigger, trigger_type: triggerType, steps };
}

const nameInput = Type.String({ minLength: 1, maxLength: 200 });
const descriptionInput = Type.String({ maxLength: 2000 });
const statusInput = Enum(agentStatuses);

export const createAgentWorkflow = defineOperation({
  name: 'create_agent_workflow',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  example: {
    steps: [
      {
        key: 'find_contact',
        kind: 'tool',
        tool: 'search_contacts',
        arguments: { query: { $from: 'input.email' } },
      },
    ],
  },
  creates: 'agent_workflow',
  summary: 'Create an agent workflow',
  description:
    'Records a workflow: a unique key, a trigger (manual, a domain event, or a schedule) and ordered steps, each a tool of this service or an agent (agent_key, optional pinned version) with arguments that may take values from the run input or earlier outputs ({"$from": "input.email"}). Checked when saved: unknown tools, argument names or agents, and unknown or forward references are validation_failed naming the step. Emits agent_workflow.created.',
  input: Strict({
    key: keyInput('Unique in the workspace; cannot change.', 'ticket_followup'),
    name: nameInput,
    description: Type.Optional(descriptionInput),
    trigger: Type.Optional(triggerInput),
    steps: stepsInput,
    status: Type.Optional(statusInput),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/workflows' },
  responseKey: 'workflow',
  handler: async (ctx, input) => {
    const checked = await checkedDefinition(ctx, {
      trigger: input.trigger ?? { type: 'manual' },
      steps: input.steps,
    });
    const duplicate = `a workflow with key "${input.key}" already exists in this workspace`;
    if (await findWorkflowByKey(ctx.db, ctx.workspaceId, input.key)) {
      throw validationFailed([{ field: 'key', message: duplicate }]);
    }
    const row: AgentWorkflowsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('awf'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      trigger_type: checked.trigger_type!,
      trigger: checked.trigger!,
      steps: checked.steps!,
      status: input.status ?? 'active',
      latest_version: 0,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertWorkflow(ctx.db, row), 'key', duplicate);
    const workflow = toWorkflow(row);
    ctx.audit({ targetType: 'agent_workflow', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_workflow.created',
      targetType: 'agent_workflow',
      targetId: row.id,
      data: workflow,
    });
    return { body: { workflow }, createdId: row.id };
  },
});

export const listAgentWorkflows = defineOperation({
  name: 'list_agent_workflows',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List agent workflows',
  description:
    'Lists the workflows of the workspace with their trigger and steps, newest first; filter by status or trigger_type, or find one by key.',
  input: Strict({
    status: Type.Optional(statusInput),
    trigger_type: Type.Optional(Enum(triggerTypes)),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/workflows' },
  // One index serves one filter; a second is checked row by row.
  heavy: (input) => [input.status, input.trigger_type, input.key].filter(Boolean).length > 1,
  responseKey: 'workflows',
  handler: async (ctx, input) => {
    const page = await listWorkflows(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_workflows', input),
    );
    return { body: listBody('workflows', page) };
  },
});

const WORKFLOW_FIELDS = ['name', 'description', 'trigger', 'trigger_type', 'steps', 'status'] as const;

export const updateAgentWorkflow = defineOperation({
  name: 'update_agent_workflow',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  summary: 'Edit an agent workflow',
  description:
    "Changes a workflow's name, description, trigger or steps (each replaced whole and checked as on create) or status. Versions already taken never change and no version is made: snapshot with create_agent_workflow_version. Emits agent_workflow.updated.",
  input: Strict({
    workflow_id: idInput(),
    name: Type.Optional(nameInput),
    description: Type.Optional(Type.Union([descriptionInput, Type.Null()])),
    trigger: Type.Optional(triggerInput),
    steps: Type.Optional(stepsInput),
    status: Type.Optional(statusInput),
  }),
  rest: { method: 'PATCH', path: '/v1/agent-grid/workflows/{workflow_id}' },
  responseKey: 'workflow',
  handler: async (ctx, input) => {
    requireSomeField(input, WORKFLOW_FIELDS);
    const row = await findWorkflow(ctx.db, ctx.workspaceId, input.workflow_id);
    if (!row) throw notFound('agent workflow');
    const checked = await checkedDefinition(ctx, input);
    const { changes, changed } = diffFields(row, { ...input, ...checked }, WORKFLOW_FIELDS);
    const recorded = changed.filter((field) => field !== 'trigger_type');
    if (recorded.length === 0) {
      ctx.audit({ targetType: 'agent_workflow', targetId: row.id, changedFields: [] });
      return { body: { workflow: toWorkflow(row) } };
    }
    const next: AgentWorkflowsTable = { ...row, ...changes, updated_at: ctx.now };
    await updateWorkflowRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    const workflow = toWorkflow(next);
    ctx.audit({ targetType: 'agent_workflow', targetId: row.id, changedFields: recorded });
    ctx.emit({
      name: 'agent_workflow.updated',
      targetType: 'agent_workflow',
      targetId: row.id,
      data: workflow,
    });
    return { body: { workflow } };
  },
});
