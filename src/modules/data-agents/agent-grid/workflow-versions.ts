import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { WorkflowVersionSchema } from './agent-grid-schemas.ts';
import { conflictWith, idInput } from './agent-grid-shared.ts';
import type { AgentWorkflowVersionsTable } from './agent-grid-tables.ts';
import { bumpCounter } from './agent-store.ts';
import {
  findWorkflow,
  insertWorkflowVersion,
  listWorkflowVersions,
  toWorkflowVersion,
} from './workflow-store.ts';

export const workflowVersionRecord = defineRecordType({
  type: 'agent_workflow_version',
  module: 'data_agents',
  table: 'agent_workflow_versions',
  collection: '/v1/agent-grid/workflow-versions',
  key: 'workflow_version',
  readScope: 'data_agents:read',
  schema: WorkflowVersionSchema,
  toResource: toWorkflowVersion,
});

export const createAgentWorkflowVersion = defineOperation({
  name: 'create_agent_workflow_version',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_workflow_version',
  summary: 'Snapshot an agent workflow as a new version',
  description:
    "Freezes the workflow's current trigger and steps as its next version (1, 2, ...) with a changelog; versions never change, and runs name the version they ran. An archived workflow is 409 conflict. Emits agent_workflow_version.created.",
  input: Strict({
    workflow_id: idInput(),
    changelog: Type.Optional(
      Type.String({ maxLength: 10_000, description: 'What changed since the last version.' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/workflow-versions' },
  responseKey: 'workflow_version',
  handler: async (ctx, input) => {
    const workflow = await findWorkflow(ctx.db, ctx.workspaceId, input.workflow_id);
    if (!workflow) throw notFound('agent workflow');
    if (workflow.status === 'archived') throw conflictWith('agent workflow', workflow.id, 'archived');
    const version = await bumpCounter(
      ctx.db,
      'agent_workflows',
      'latest_version',
      ctx.workspaceId,
      workflow.id,
    );
    const row: AgentWorkflowVersionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('awfv'),
      workflow_id: workflow.id,
      version,
      key: workflow.key,
      name: workflow.name,
      description: workflow.description,
      trigger: workflow.trigger,
      steps: workflow.steps,
      changelog: input.changelog ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertWorkflowVersion(ctx.db, row);
    const workflowVersion = toWorkflowVersion(row);
    ctx.audit({ targetType: 'agent_workflow_version', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_workflow_version.created',
      targetType: 'agent_workflow_version',
      targetId: row.id,
      data: workflowVersion,
    });
    return { body: { workflow_version: workflowVersion }, createdId: row.id };
  },
});

export const listAgentWorkflowVersions = defineOperation({
  name: 'list_agent_workflow_versions',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List agent workflow versions',
  description:
    "Lists workflow versions (immutable snapshots), newest first; give workflow_id for one workflow's history. Use a version's id as workflow_version_id of create_agent_grid_run.",
  input: Strict({ workflow_id: Type.Optional(idInput()), ...pageInput }),
  rest: { method: 'GET', path: '/v1/agent-grid/workflow-versions' },
  responseKey: 'workflow_versions',
  handler: async (ctx, input) => {
    const page = await listWorkflowVersions(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_workflow_versions', input),
    );
    return { body: listBody('workflow_versions', page) };
  },
});
