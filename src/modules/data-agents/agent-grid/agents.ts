import { Type } from '@sinclair/typebox';
import {
  diffFields,
  inputFields,
  mergedJson,
  requireSomeField,
  withoutNulls,
} from '../../../core/changes.ts';
import { uniquely } from '../../../core/db-errors.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { AgentSchema, agentStatuses } from './agent-grid-schemas.ts';
import { checkToolList, idInput, keyInput, metadataInput } from './agent-grid-shared.ts';
import type { AgentDefinitionsTable } from './agent-grid-tables.ts';
import {
  findAgent,
  findAgentByKey,
  insertAgent,
  listAgents,
  toAgent,
  updateAgentRow,
} from './agent-store.ts';

export const agentRecord = defineRecordType({
  type: 'agent_definition',
  module: 'data_agents',
  table: 'agent_definitions',
  collection: '/v1/agent-grid/agents',
  key: 'agent',
  readScope: 'data_agents:read',
  schema: AgentSchema,
  toResource: toAgent,
});

const nameInput = Type.String({ minLength: 1, maxLength: 200 });
const descriptionInput = Type.String({ maxLength: 2000 });
const instructionsInput = Type.String({ minLength: 1, maxLength: 100_000 });
const modelInput = Type.String({ minLength: 1, maxLength: 200, description: 'A model name, as text.' });
const toolsInput = Type.Array(Type.String({ minLength: 1, maxLength: 100, examples: ['search_contacts'] }), {
  maxItems: 200,
  description: 'Tool names of this service (tools/list); each must exist.',
});
const statusInput = Enum(agentStatuses);

export const createAgentDefinition = defineOperation({
  name: 'create_agent_definition',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_definition',
  summary: 'Create an agent definition',
  description:
    'Records an agent: a unique key, name, instructions, the model name it runs on (text; this service never calls it) and the tools of this service it may call (each checked to exist). Snapshot it with create_agent_definition_version before recording runs. Emits agent_definition.created.',
  input: Strict({
    key: keyInput('Unique in the workspace; lowercase letters, digits, _. Cannot change.', 'support_triage'),
    name: nameInput,
    description: Type.Optional(descriptionInput),
    instructions: instructionsInput,
    model: Type.Optional(modelInput),
    tools: Type.Optional(toolsInput),
    metadata: Type.Optional(metadataInput()),
    status: Type.Optional(statusInput),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/agents' },
  responseKey: 'agent',
  handler: async (ctx, input) => {
    const tools = input.tools ?? [];
    checkToolList(ctx, tools);
    const duplicate = `an agent with key "${input.key}" already exists in this workspace`;
    if (await findAgentByKey(ctx.db, ctx.workspaceId, input.key)) {
      throw validationFailed([{ field: 'key', message: duplicate }]);
    }
    const row: AgentDefinitionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('agt'),
      key: input.key,
      name: input.name,
      description: input.description ?? null,
      instructions: input.instructions,
      model: input.model ?? null,
      tools: JSON.stringify(tools),
      metadata: JSON.stringify(withoutNulls(input.metadata)),
      status: input.status ?? 'active',
      latest_version: 0,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await uniquely(() => insertAgent(ctx.db, row), 'key', duplicate);
    const agent = toAgent(row);
    ctx.audit({ targetType: 'agent_definition', targetId: agent.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_definition.created',
      targetType: 'agent_definition',
      targetId: agent.id,
      data: agent,
    });
    return { body: { agent }, createdId: agent.id };
  },
});

export const listAgentDefinitions = defineOperation({
  name: 'list_agent_definitions',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List agent definitions',
  description:
    'Lists the agent definitions of the workspace, newest first, with their tools and latest version number; filter by status or find one by its key.',
  input: Strict({
    status: Type.Optional(statusInput),
    key: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/agents' },
  responseKey: 'agents',
  handler: async (ctx, input) => {
    const page = await listAgents(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_definitions', input),
    );
    return { body: listBody('agents', page) };
  },
});

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);
const AGENT_FIELDS = ['name', 'description', 'instructions', 'model', 'tools', 'metadata', 'status'] as const;

export const updateAgentDefinition = defineOperation({
  name: 'update_agent_definition',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  summary: 'Edit an agent definition',
  description:
    "Changes an agent's name, description, instructions, model, tools (replaced whole, each checked to exist), metadata (merged; null removes a key) or status (archived agents take no new versions). Versions already taken are immutable and no version is made: snapshot with create_agent_definition_version. Emits agent_definition.updated.",
  input: Strict({
    agent_id: idInput(),
    name: Type.Optional(nameInput),
    description: Type.Optional(nullable(descriptionInput)),
    instructions: Type.Optional(instructionsInput),
    model: Type.Optional(nullable(modelInput)),
    tools: Type.Optional(toolsInput),
    metadata: Type.Optional(metadataInput('Merged; null removes a key.')),
    status: Type.Optional(statusInput),
  }),
  rest: { method: 'PATCH', path: '/v1/agent-grid/agents/{agent_id}' },
  responseKey: 'agent',
  handler: async (ctx, input) => {
    requireSomeField(input, AGENT_FIELDS);
    const row = await findAgent(ctx.db, ctx.workspaceId, input.agent_id);
    if (!row) throw notFound('agent definition');
    if (input.tools) checkToolList(ctx, input.tools);
    const { changes, changed } = diffFields(
      row,
      {
        ...input,
        tools: input.tools && JSON.stringify(input.tools),
        metadata: mergedJson(row.metadata, input.metadata),
      },
      AGENT_FIELDS,
    );
    if (changed.length === 0) {
      ctx.audit({ targetType: 'agent_definition', targetId: row.id, changedFields: [] });
      return { body: { agent: toAgent(row) } };
    }
    const next: AgentDefinitionsTable = { ...row, ...changes, updated_at: ctx.now };
    await updateAgentRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    const agent = toAgent(next);
    ctx.audit({ targetType: 'agent_definition', targetId: row.id, changedFields: changed });
    ctx.emit({
      name: 'agent_definition.updated',
      targetType: 'agent_definition',
      targetId: row.id,
      data: agent,
    });
    return { body: { agent } };
  },
});
