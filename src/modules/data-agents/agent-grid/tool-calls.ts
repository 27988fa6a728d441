import { Type } from '@sinclair/typebox';
import { inputFields } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { ToolCallSchema, toolCallStatuses } from './agent-grid-schemas.ts';
import { idInput, isRegistryTool, jsonInput } from './agent-grid-shared.ts';
import type { AgentGridToolCallsTable } from './agent-grid-tables.ts';
import { recomputeRun, runTakingChildren } from './run-child.ts';
import { insertToolCall, listChildren, requestRoutes, toToolCall } from './run-store.ts';

export const toolCallRecord = defineRecordType({
  type: 'agent_grid_tool_call',
  module: 'data_agents',
  table: 'agent_grid_tool_calls',
  collection: '/v1/agent-grid/tool-calls',
  key: 'tool_call',
  readScope: 'data_agents:read',
  schema: ToolCallSchema,
  toResource: toToolCall,
});

/**
 * A request_id names a call of this tool in this workspace: its call event's route is the tool name (MCP,
 * worker calls) or the tool's REST route. A read's call event is written within ~20 ms of its answer.
 */
async function checkRequest(ctx: OperationContext, tool: string, requestId: string): Promise<void> {
  const calls = await requestRoutes(ctx.db, ctx.workspaceId, requestId);
  if (calls.length === 0) {
    throw validationFailed([
      { field: 'request_id', message: 'no request with this ID was made in this workspace' },
    ]);
  }
  const rest = ctx.operationNamed(tool)?.rest;
  const routes = new Set([tool, ...(rest ? [`${rest.method} ${rest.path}`] : [])]);
  const other = calls.find((call) => !routes.has(call.route));
  if (other) {
    throw validationFailed([
      { field: 'request_id', message: `is a request of ${other.route}, not of ${tool}` },
    ]);
  }
}

export const createAgentGridToolCall = defineOperation({
  name: 'create_agent_grid_tool_call',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_grid_tool_call',
  summary: 'Record a tool call of a run',
  description:
    "Records one tool call of an unfinished run (a finished run is 409 conflict): tool name, arguments, status, duration, a short result summary. For a tool of this service, send the call's request_id (checked to be a call of that tool in this workspace), so GET /v1/requests/{request_id} joins the step to its audit events. The run's tool_calls total is recomputed; a queued run becomes running. Emits agent_grid_tool_call.created.",
  input: Strict({
    run_id: idInput(),
    tool: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'A tool of this service, or an external one.',
    }),
    arguments: Type.Optional(jsonInput('The arguments sent (no secrets).')),
    status: Type.Optional(Enum(toolCallStatuses, { description: 'Default completed.' })),
    error_code: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    duration_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 2_000_000_000 })),
    result_summary: Type.Optional(Type.String({ maxLength: 4000 })),
    request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/tool-calls' },
  responseKey: 'tool_call',
  handler: async (ctx, input) => {
    const status = input.status ?? 'completed';
    if (input.error_code && status !== 'failed') {
      throw validationFailed([{ field: 'error_code', message: 'is only for a failed call (status failed)' }]);
    }
    const registry = isRegistryTool(ctx, input.tool);
    if (input.request_id && !registry) {
      throw validationFailed([
        {
          field: 'request_id',
          message: `only calls of this service's tools have one; "${input.tool}" is not one`,
        },
      ]);
    }
    const run = await runTakingChildren(ctx, input.run_id);
    if (input.request_id) await checkRequest(ctx, input.tool, input.request_id);
    const row: AgentGridToolCallsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('atc'),
      run_id: run.id,
      tool: input.tool,
      registry_tool: registry ? 1 : 0,
      arguments: JSON.stringify(input.arguments ?? {}),
      status,
      error_code: input.error_code ?? null,
      duration_ms: input.duration_ms ?? null,
      result_summary: input.result_summary ?? null,
      request_id: input.request_id ?? null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertToolCall(ctx.db, row);
    await recomputeRun(ctx, run, 'tool_calls');
    const toolCall = toToolCall(row);
    ctx.audit({ targetType: 'agent_grid_tool_call', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_grid_tool_call.created',
      targetType: 'agent_grid_tool_call',
      targetId: row.id,
      data: toolCall,
    });
    return { body: { tool_call: toolCall }, createdId: row.id };
  },
});

export const listAgentGridToolCalls = defineOperation({
  name: 'list_agent_grid_tool_calls',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List tool calls of runs',
  description:
    'Lists recorded tool calls, newest first; filter by run, tool name, status, or request_id (which step of which run made a given request).',
  input: Strict({
    run_id: Type.Optional(idInput()),
    tool: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Enum(toolCallStatuses)),
    request_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/tool-calls' },
  heavy: heavyFilters({ indexed: ['run_id', 'tool', 'request_id'], scans: ['status'] }),
  responseKey: 'tool_calls',
  handler: async (ctx, input) => {
    const { limit: _l, cursor: _c, ...filters } = input;
    const page = await listChildren(
      ctx.db,
      'agent_grid_tool_calls',
      ctx.workspaceId,
      filters,
      pageRequest('list_agent_grid_tool_calls', input),
    );
    return { body: listBody('tool_calls', { ...page, items: page.items.map(toToolCall) }) };
  },
});
