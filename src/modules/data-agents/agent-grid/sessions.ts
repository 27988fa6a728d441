import { Type } from '@sinclair/typebox';
import {
  diffFields,
  inputFields,
  mergedJson,
  requireSomeField,
  withoutNulls,
} from '../../../core/changes.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { heavyFilters, listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { Strict } from '../../../core/schema.ts';
import { SessionSchema, sessionStatuses } from './agent-grid-schemas.ts';
import { idInput, metadataInput } from './agent-grid-shared.ts';
import type { AgentSessionsTable } from './agent-grid-tables.ts';
import { findAgent } from './agent-store.ts';
import { findSession, insertSession, listSessions, toSession, updateSessionRow } from './session-store.ts';

export const sessionRecord = defineRecordType({
  type: 'agent_session',
  module: 'data_agents',
  table: 'agent_sessions',
  collection: '/v1/agent-grid/sessions',
  key: 'session',
  readScope: 'data_agents:read',
  schema: SessionSchema,
  toResource: toSession,
});

const titleInput = Type.String({ maxLength: 500 });
const userInput = Type.String({ minLength: 1, maxLength: 255, description: 'Your ID of the end user.' });

export const createAgentSession = defineOperation({
  name: 'create_agent_session',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'agent_session',
  summary: 'Open an agent session',
  description:
    'Opens a session (a conversation thread), optionally of one agent and one end user, with a title and metadata. Add its turns with create_agent_session_item and its runs with create_agent_grid_run (session_id). Emits agent_session.created.',
  input: Strict({
    agent_id: Type.Optional(idInput('The agent the conversation is with; its runs must be of this agent.')),
    user_id: Type.Optional(userInput),
    title: Type.Optional(titleInput),
    metadata: Type.Optional(metadataInput()),
  }),
  rest: { method: 'POST', path: '/v1/agent-grid/sessions' },
  responseKey: 'session',
  handler: async (ctx, input) => {
    if (input.agent_id && !(await findAgent(ctx.db, ctx.workspaceId, input.agent_id))) {
      throw notFound('agent definition');
    }
    const row: AgentSessionsTable = {
      workspace_id: ctx.workspaceId,
      id: newId('ases'),
      agent_id: input.agent_id ?? null,
      user_id: input.user_id ?? null,
      title: input.title ?? null,
      status: 'open',
      metadata: JSON.stringify(withoutNulls(input.metadata)),
      item_count: 0,
      last_item_at: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertSession(ctx.db, row);
    const session = toSession(row);
    ctx.audit({ targetType: 'agent_session', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({ name: 'agent_session.created', targetType: 'agent_session', targetId: row.id, data: session });
    return { body: { session }, createdId: row.id };
  },
});

export const listAgentSessions = defineOperation({
  name: 'list_agent_sessions',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List agent sessions',
  description:
    'Lists sessions, newest first, with their item count; filter by agent, end user or status (open, closed).',
  input: Strict({
    agent_id: Type.Optional(idInput()),
    user_id: Type.Optional(userInput),
    status: Type.Optional(Enum(sessionStatuses)),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/agent-grid/sessions' },
  heavy: heavyFilters({ indexed: ['agent_id', 'user_id', 'status'] }),
  responseKey: 'sessions',
  handler: async (ctx, input) => {
    const page = await listSessions(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_agent_sessions', input),
    );
    return { body: listBody('sessions', page) };
  },
});

const SESSION_FIELDS = ['title', 'status', 'metadata'] as const;

export const updateAgentSession = defineOperation({
  name: 'update_agent_session',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  summary: 'Rename, close or reopen a session',
  description:
    "Changes a session's title, status (closed: it takes no new items or runs, 409 conflict; open again to continue) or metadata (merged; null removes a key). Emits agent_session.updated.",
  input: Strict({
    session_id: idInput(),
    title: Type.Optional(Type.Union([titleInput, Type.Null()])),
    status: Type.Optional(Enum(sessionStatuses)),
    metadata: Type.Optional(metadataInput('Merged; null removes a key.')),
  }),
  rest: { method: 'PATCH', path: '/v1/agent-grid/sessions/{session_id}' },
  responseKey: 'session',
  handler: async (ctx, input) => {
    requireSomeField(input, SESSION_FIELDS);
    const row = await findSession(ctx.db, ctx.workspaceId, input.session_id, ctx.dialect);
    if (!row) throw notFound('agent session');
    const { changes, changed } = diffFields(
      row,
      { ...input, metadata: mergedJson(row.metadata, input.metadata) },
      SESSION_FIELDS,
    );
    if (changed.length === 0) {
      ctx.audit({ targetType: 'agent_session', targetId: row.id, changedFields: [] });
      return { body: { session: toSession(row) } };
    }
    const set = { ...changes, updated_at: ctx.now };
    await updateSessionRow(ctx.db, ctx.workspaceId, row.id, set);
    const session = toSession({ ...row, ...set });
    ctx.audit({ targetType: 'agent_session', targetId: row.id, changedFields: changed });
    ctx.emit({ name: 'agent_session.updated', targetType: 'agent_session', targetId: row.id, data: session });
    return { body: { session } };
  },
});
