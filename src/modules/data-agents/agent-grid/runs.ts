import { Type } from '@sinclair/typebox';
import { inputFields, mergedJson, withoutNulls } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { RunSchema, runStatuses } from './agent-grid-schemas.ts';
import { conflictWith, currencyInput, idInput, jsonInput, metadataInput } from './agent-grid-shared.ts';
import type { AgentGridRunsTable } from './agent-grid-tables.ts';
import { findAgentVersion } from './agent-store.ts';
import { FINISHED, runTakingChildren } from './run-child.ts';
import { findRun, insertRun, listRuns, toRun, updateRunRow } from './run-store.ts';
import { findSession } from './session-store.ts';
import { findWorkflowVersion } from './workflow-store.ts';

export const runRecord = defineRecordType({
  type: 'agent_grid_run',
  module: 'data_agents',
  table: 'agent_grid_runs',
  collection: '/v1/agent-grid/runs',
  key: 'run',
  readScope: 'data_agents:read',
  schema: RunSchema,
  toResource: toRun,
});

const both = (message: string) =>
  validationFailed([
    { field: 'agent_version_id', message },
    { field: 'workflow_version_id', message },
  ]);

export const createAgentGridRun = defineOperation({
  name: 'create_agent_grid_run',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_grid_run',
  summary: 'Record an agent or workflow run',
  description:
    'Starts the record of one run of an agent version or a workflow version (exactly one), optionally in a session (open, of the same agent) or under a parent run. This service records runs; it does not execute them. Status queued (default) or running; add tool calls, retrieval hits and cost events as the run goes (its totals follow them; the first child moves it to running), then finish it with update_agent_grid_run. Emits agent_grid_run.created.',
  input: Strict({
    agent_version_id: Type.Optional(idInput('The agent version run (list_agent_definition_versions).')),
    workflow_version_id: Type.Optional(idInput('The workflow version run (list_agent_workflow_versions).')),
    session_id: Type.Optional(idInput()),
    parent_run_id: Type.Optional(
      idInput('The run this one is part of (a workflow step); must be unfinished.'),
    ),
    status: Type.Optional(Enum(['queued', 'running'] as const)),
    input: Type.Optional(jsonInput('What the run is asked (a JSON object).')),
    metadata: Type.Optional(metadataInput()),
    currency: Type.Optional(currencyInput('ISO 4217 code of its cost events; default USD.')),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/runs' },
  responseKey: 'run',
  handler: async (ctx, input) => {
    if (!input.agent_version_id === !input.workflow_version_id) {
      throw both('give exactly one of agent_version_id and workflow_version_id');
    }
    const agentVersion = input.agent_version_id
      ? await findAgentVersion(ctx.db, ctx.workspaceId, input.agent_version_id)
      : undefined;
    if (input.agent_version_id && !agentVersion) throw notFound('agent definition version');
    const workflowVersion = input.workflow_version_id
      ? await findWorkflowVersion(ctx.db, ctx.workspaceId, input.workflow_version_id)
      : undefined;
    if (input.workflow_version_id && !workflowVersion) throw notFound('agent workflow version');
    if (input.session_id) {
      const session = await findSession(ctx.db, ctx.workspaceId, input.session_id, ctx.dialect);
      if (!session) throw notFound('agent session');
      if (session.status !== 'open') throw conflictWith('agent session', session.id, session.status);
      if (session.agent_id && session.agent_id !== agentVersion?.agent_id) {
        throw validationFailed([
          {
            field: 'session_id',
            message: `the session belongs to agent ${session.agent_id}; run a version of it`,
          },
        ]);
      }
    }
    if (input.parent_run_id) await runTakingChildren(ctx, input.parent_run_id);
    const status = input.status ?? 'queued';
    const row: AgentGridRunsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('arun'),
      agent_id: agentVersion?.agent_id ?? null,
      agent_version_id: agentVersion?.id ?? null,
      workflow_id: workflowVersion?.workflow_id ?? null,
      workflow_version_id: workflowVersion?.id ?? null,
      session_id: input.session_id ?? null,
      parent_run_id: input.parent_run_id ?? null,
      status,
      input: JSON.stringify(input.input ?? {}),
      output: null,
      error_code: null,
      error_message: null,
      metadata: JSON.stringify(withoutNulls(input.metadata)),
      tool_calls: 0,
      retrieval_hits: 0,
      cost_events: 0,
      tokens_in: 0,
      tokens_out: 0,
      cost_micros: 0,
      currency: input.currency ?? 'USD',
      started_at: status === 'running' ? ctx.now : null,
      finished_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertRun(ctx.db, row);
    const run = toRun(row);
    ctx.audit({ targetType: 'agent_grid_run', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'agent_grid_run.created', targetType: 'agent_grid_run', targetId: row.id, data: run });
    return { body: { run }, createdId: row.id };
  },
});

export const listAgentGridRuns = defineOperation({
  name: 'list_agent_grid_runs',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List Agent Grid runs',
  description:
    'Lists recorded runs, newest first, with status and totals (tool calls, tokens, cost); filter by agent, agent version, workflow, workflow version, session, parent run or status.',
  input: Strict({
    agent_id: Type.Optional(idInput()),
    agent_version_id: Type.Optional(idInput()),
    workflow_id: Type.Optional(idInput()),
    workflow_version_id: Type.Optional(idInput()),
    session_id: Type.Optional(idInput()),
    parent_run_id: Type.Optional(idInput()),
    status: Type.Optional(Enum(runStatuses)),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/runs' },
  heavy: heavyFilters({
    indexed: ['agent_id', 'workflow_id', 'session_id', 'parent_run_id', 'status'],
    scans: ['agent_version_id', 'workflow_version_id'],
  }),
  responseKey: 'runs',
  handler: async (ctx, input) => {
    const page = await listRuns(ctx.db, ctx.workspaceId, input, pageRequest('list_agent_grid_runs', input));
    return { body: listBody('runs', page) };
  },
});

const NEXT: Record<string, readonly string[]> = {
  queued: ['running', 'completed', 'failed', 'canceled'],
  running: ['completed', 'failed', 'canceled'],
};

export const updateAgentGridRun = defineOperation({
  name: 'update_agent_grid_run',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  extension: true,
  summary: 'Move a run on or finish it',
  description:
    'Records the progress of a run: status running, completed, failed (with error) or canceled, its output (a JSON object), and metadata (merged). A finished run takes no further changes (409 conflict naming its status). Emits agent_grid_run.updated.',
  input: Strict({
    run_id: idInput(),
    status: Type.Optional(Enum(['running', 'completed', 'failed', 'canceled'] as const)),
    output: Type.Optional(jsonInput('What the run produced.')),
    error: Type.Optional(
      Strict({
        code: Type.String({ minLength: 1, maxLength: 100 }),
        message: Type.String({ maxLength: 2000 }),
      }),
    ),
    metadata: Type.Optional(metadataInput('Merged; null removes a key.')),
  }),
  rest: { method: 'PATCH', path: '/v1/agent-grid/runs/{run_id}' },
  responseKey: 'run',
  handler: async (ctx, input) => {
    if (![input.status, input.output, input.error, input.metadata].some((v) => v !== undefined)) {
      throw validationFailed([
        { field: '(body)', message: 'send at least one of status, output, error, metadata' },
      ]);
    }
    const run = await findRun(ctx.db, ctx.workspaceId, input.run_id, ctx.dialect);
    if (!run) throw notFound('agent grid run');
    if (FINISHED.includes(run.status)) throw conflictWith('agent grid run', run.id, run.status);
    const status = input.status ?? run.status;
    if (status !== run.status && !NEXT[run.status]?.includes(status)) {
      throw validationFailed([{ field: 'status', message: `a ${run.status} run cannot become ${status}` }]);
    }
    if (input.error && status !== 'failed') {
      throw validationFailed([{ field: 'error', message: 'is only for a failed run (status failed)' }]);
    }
    const changes: Partial<AgentGridRunsTable> = {};
    if (status !== run.status) {
      changes.status = status;
      if (status === 'running') changes.started_at = ctx.now;
      if (FINISHED.includes(status)) changes.finished_at = ctx.now;
    }
    if (input.output) changes.output = JSON.stringify(input.output);
    if (input.error) {
      changes.error_code = input.error.code;
      changes.error_message = input.error.message;
    }
    const metadata = mergedJson(run.metadata, input.metadata);
    if (metadata !== undefined && metadata !== run.metadata) changes.metadata = metadata;
    const changed = Object.keys(changes).filter(
      (f) => changes[f as keyof AgentGridRunsTable] !== run[f as keyof AgentGridRunsTable],
    );
    if (changed.length === 0) {
      ctx.audit({ targetType: 'agent_grid_run', targetId: run.id, changedFields: [] });
      return { body: { run: toRun(run) } };
    }
    changes.updated_at = ctx.now;
    await updateRunRow(ctx.db, ctx.workspaceId, run.id, changes);
    const next = toRun({ ...run, ...changes });
    ctx.audit({ targetType: 'agent_grid_run', targetId: run.id, changedFields: changed });
    ctx.emit({ name: 'agent_grid_run.updated', targetType: 'agent_grid_run', targetId: run.id, data: next });
    return { body: { run: next } };
  },
});
