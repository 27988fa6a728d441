import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Strict } from '../../../core/schema.ts';
import { AgentVersionSchema } from './agent-grid-schemas.ts';
import { checkToolList, conflictWith, idInput, parseJson } from './agent-grid-shared.ts';
import type { AgentDefinitionVersionsTable } from './agent-grid-tables.ts';
import {
  bumpCounter,
  findAgent,
  insertAgentVersion,
  listAgentVersions,
  toAgentVersion,
} from './agent-store.ts';

export const agentVersionRecord = defineRecordType({
  type: 'agent_definition_version',
  module: 'data_agents',
  table: 'agent_definition_versions',
  collection: '/v1/agent-grid/agent-versions',
  key: 'agent_version',
  readScope: 'data_agents:read',
  schema: AgentVersionSchema,
  toResource: toAgentVersion,
});

export const createAgentDefinitionVersion = defineOperation({
  name: 'create_agent_definition_version',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_definition_version',
  summary: 'Snapshot an agent definition as a new version',
  description:
    "Freezes the agent's current name, instructions, model and tools as its next version (1, 2, ...) with a changelog; versions never change, and runs name the version they ran. Its tools are checked to still exist. An archived agent is 409 conflict. Emits agent_definition_version.created.",
  input: Strict({
    agent_id: idInput(),
    changelog: Type.Optional(
      Type.String({ maxLength: 10_000, description: 'What changed since the last version.' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/agent-versions' },
  responseKey: 'agent_version',
  handler: async (ctx, input) => {
    const agent = await findAgent(ctx.db, ctx.workspaceId, input.agent_id);
    if (!agent) throw notFound('agent definition');
    if (agent.status === 'archived') throw conflictWith('agent definition', agent.id, 'archived');
    checkToolList(ctx, parseJson<string[]>(agent.tools));
    const version = await bumpCounter(
      ctx.db,
      'agent_definitions',
      'latest_version',
      ctx.workspaceId,
      agent.id,
    );
    const row: AgentDefinitionVersionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('agtv'),
      agent_id: agent.id,
      version,
      key: agent.key,
      name: agent.name,
      description: agent.description,
      instructions: agent.instructions,
      model: agent.model,
      tools: agent.tools,
      changelog: input.changelog ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertAgentVersion(ctx.db, row);
    const agentVersion = toAgentVersion(row);
    ctx.audit({
      targetType: 'agent_definition_version',
      targetId: row.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'agent_definition_version.created',
      targetType: 'agent_definition_version',
      targetId: row.id,
      data: agentVersion,
    });
    return { body: { agent_version: agentVersion }, createdId: row.id };
  },
});

export const listAgentDefinitionVersions = defineOperation({
  name: 'list_agent_definition_versions',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List agent definition versions',
  description:
    "Lists agent versions (immutable snapshots), newest first; give agent_id for one agent's history. Use a version's id as agent_version_id of create_agent_grid_run.",
  input: Strict({ agent_id: Type.Optional(idInput()), ...pageInput }),
  rest: { method: 'GET', path: '/v1/agent-grid/agent-versions' },
  responseKey: 'agent_versions',
  handler: async (ctx, input) => {
    const page = await listAgentVersions(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_definition_versions', input),
    );
    return { body: listBody('agent_versions', page) };
  },
});
