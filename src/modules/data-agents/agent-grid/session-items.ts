import { Type } from '@sinclair/typebox';
import { inputFields, withoutNulls } from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { itemRoles, SessionItemSchema } from './agent-grid-schemas.ts';
import { conflictWith, idInput, metadataInput } from './agent-grid-shared.ts';
import type { AgentSessionItemsTable } from './agent-grid-tables.ts';
import { bumpCounter } from './agent-store.ts';
import { findRun, findToolCall } from './run-store.ts';
import { findSession, insertSessionItem, listSessionItems, toSessionItem } from './session-store.ts';

export const sessionItemRecord = defineRecordType({
  type: 'agent_session_item',
  module: 'data_agents',
  table: 'agent_session_items',
  collection: '/v1/agent-grid/session-items',
  key: 'session_item',
  readScope: 'data_agents:read',
  schema: SessionItemSchema,
  toResource: toSessionItem,
});

export const createAgentSessionItem = defineOperation({
  name: 'create_agent_session_item',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_session_item',
  summary: 'Add a turn to a session',
  description:
    'Appends one item to an open session (closed: 409 conflict): role user, assistant, tool or system, its content, and optionally the run and tool call it came from (a tool item names its tool_call_id). Items are numbered 1, 2, ... in the order they are added. Emits agent_session_item.created.',
  input: Strict({
    session_id: idInput(),
    role: Enum(itemRoles),
    content: Type.String({ maxLength: 200_000 }),
    run_id: Type.Optional(idInput('The run that produced it; a run of this session.')),
    tool_call_id: Type.Optional(idInput('The tool call it answers or reports (required for role tool).')),
    metadata: Type.Optional(metadataInput()),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/session-items' },
  responseKey: 'session_item',
  handler: async (ctx, input) => {
    if (input.role === 'tool' && !input.tool_call_id) {
      throw validationFailed([{ field: 'tool_call_id', message: 'is required for a tool item' }]);
    }
    const session = await findSession(ctx.db, ctx.workspaceId, input.session_id, ctx.dialect);
    if (!session) throw notFound('agent session');
    if (session.status !== 'open') throw conflictWith('agent session', session.id, session.status);
    if (input.run_id) {
      const run = await findRun(ctx.db, ctx.workspaceId, input.run_id);
      if (!run) throw notFound('agent grid run');
      if (run.session_id !== session.id) {
        throw validationFailed([{ field: 'run_id', message: 'is not a run of this session' }]);
      }
    }
    if (input.tool_call_id) {
      const call = await findToolCall(ctx.db, ctx.workspaceId, input.tool_call_id);
      if (!call) throw notFound('agent grid tool call');
      if (input.run_id && call.run_id !== input.run_id) {
        throw validationFailed([{ field: 'tool_call_id', message: 'is not a tool call of run_id' }]);
      }
    }
    const sequence = await bumpCounter(ctx.db, 'agent_sessions', 'item_count', ctx.workspaceId, session.id, {
      last_item_at: ctx.now,
      updated_at: ctx.now,
    });
    const row: AgentSessionItemsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('asi'),
      session_id: session.id,
      sequence,
      role: input.role,
      content: input.content,
      run_id: input.run_id ?? null,
      tool_call_id: input.tool_call_id ?? null,
      metadata: JSON.stringify(withoutNulls(input.metadata)),
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertSessionItem(ctx.db, row);
    const item = toSessionItem(row);
    ctx.audit({
      targetType: 'agent_session',
      targetId: session.id,
      action: 'update',
      changedFields: ['item_count', 'last_item_at'],
    });
    ctx.audit({ targetType: 'agent_session_item', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'agent_session_item.created',
      targetType: 'agent_session_item',
      targetId: row.id,
      data: item,
    });
    return { body: { session_item: item }, createdId: row.id };
  },
});

export const listAgentSessionItems = defineOperation({
  name: 'list_agent_session_items',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: "List a session's items",
  description:
    "Lists one session's items in conversation order (sequence 1, 2, ...; order desc for the latest first), optionally only one role. Use it to replay or continue a conversation.",
  input: Strict({
    session_id: idInput(),
    role: Type.Optional(Enum(itemRoles)),
    order: Type.Optional(Enum(['asc', 'desc'] as const, { description: 'Default asc (oldest first).' })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/session-items' },
  // The index (workspace, session, sequence) bounds the session, not a role: a rare role in a long
  // conversation would walk every item of it.
  heavy: heavyFilters({ scans: ['role'] }),
  responseKey: 'session_items',
  handler: async (ctx, input) => {
    if (!(await findSession(ctx.db, ctx.workspaceId, input.session_id))) throw notFound('agent session');
    const page = await listSessionItems(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_session_items', input),
    );
    return { body: listBody('session_items', page) };
  },
});
