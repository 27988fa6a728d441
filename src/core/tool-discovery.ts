// Discovery for agents on a narrowed listing: find_tools ranks every tool of the registry by a question and
// names the profiles holding each; enable_toolset adds a profile to the caller's MCP session listing.
// Both are MCP-only: they are about the MCP connection (its profiles, its session).
import { Type } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { HybridIndex } from '../modules/data-agents/agent-grid/text-rank.ts';
import { callerMayUse, toolIndexOf } from '../modules/data-agents/agent-grid/tool-catalogue.ts';
import { SCOPES } from './catalogue.ts';
import { defineOperation, type OperationDefinition } from './define-operation.ts';
import { fail } from './errors.ts';
import { Enum, Shape, Text } from './resource-schema.ts';
import { Strict } from './schema.ts';
import { PROFILE_NAMES, type ProfileName, profileHolds, profilesOf } from './tool-profiles.ts';

// Any credential may call them: they read the registry, and change only the caller's own session.
const anyScope = { scopes: [...SCOPES], scopeMode: 'any' as const };
const profileName = Enum(PROFILE_NAMES);

const FoundTool = Shape({
  name: Text('create_invoice'),
  title: Text('Create an invoice'),
  description: Type.String(),
  module: Text('crm'),
  scopes: Type.Array(Type.String(), { examples: [['crm:write']] }),
  profiles: Type.Array(profileName, { description: 'Connect with /mcp?profile=<name> to list the tool.' }),
  callable: Type.Boolean({
    description: 'Whether this credential may call it now (scopes, module enabled).',
  }),
  score: Type.Number({ examples: [0.61], description: 'Hybrid keyword and vector score, 0 to 1.' }),
});

/** find_tools and enable_toolset over the registry's operations (read when a call runs). */
export function discoveryOperations(registryOperations: () => readonly OperationDefinition[]) {
  let index: HybridIndex<OperationDefinition> | undefined;
  const toolIndex = () => {
    index ??= toolIndexOf(registryOperations().filter((op) => op.mcp && !op.deprecated));
    return index;
  };

  const findTools = defineOperation({
    name: 'find_tools',
    module: 'workspace',
    ...anyScope,
    kind: 'read',
    extension: true,
    summary: 'Find the tools for a task',
    description:
      "Ranks every tool of this service by a question (keywords weighted by rarity, plus a lexical vector, as the service guide ranks), including tools outside this connection's listing: each with its scopes, whether you may call it, and the profiles that list it. Connect with /mcp?profile=<name>, or call enable_toolset in an MCP session.",
    input: Strict({
      query: Type.String({ minLength: 1, maxLength: 500, examples: ['send an invoice to a customer'] }),
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, default: 10 })),
    }),
    rest: null,
    responseKey: 'tools',
    response: Shape({ tools: Type.Array(FoundTool) }),
    handler: async (ctx, input) => {
      const ranked = toolIndex().search(input.query, input.limit ?? 10);
      const tools = ranked.map(({ item: op, score }) => ({
        name: op.name,
        title: op.summary,
        description: op.description,
        module: op.module,
        scopes: op.scopes,
        profiles: profilesOf(op),
        callable: callerMayUse(ctx, op),
        score,
      }));
      return { body: { tools } };
    },
  });

  const enableToolset = defineOperation({
    name: 'enable_toolset',
    module: 'workspace',
    ...anyScope,
    kind: 'update',
    extension: true,
    summary: "Add a profile's tools to this MCP session",
    description:
      "Adds a profile's tools (find_tools names them) to this MCP session's tools/list, on top of the ones the connection selected, and sends notifications/tools/list_changed when the listing changed (answer as an event stream when the request accepts text/event-stream). Needs a session (the Mcp-Session-Id of initialize); a client without one connects with /mcp?profile=<name>.",
    input: Strict({ profile: profileName }),
    rest: null,
    responseKey: 'session',
    response: Shape({
      session: Shape({
        id: Text('mcps_3q2bW9x0Yx7u1c4G6k8L0m2N4p6R8t0V'),
        profiles: Type.Array(profileName, { description: 'Profiles enabled in this session, in order.' }),
      }),
      tools: Type.Array(Type.String(), {
        description: "The profile's tools this credential may call, now in the session's listing.",
        examples: [['create_invoice', 'list_invoices']],
      }),
    }),
    handler: async (ctx, input) => {
      const session = ctx.mcpSession;
      if (!session) throw fail('mcp_session_required');
      const profiles = await addProfile(ctx.db, ctx.workspaceId, session.id, input.profile);
      ctx.audit({ targetType: 'mcp_session', targetId: session.id, changedFields: ['profiles'] });
      const tools = registryOperations()
        .filter((op) => profileHolds(input.profile, op) && callerMayUse(ctx, op))
        .map((op) => op.name);
      return { body: { session: { id: session.id, profiles }, tools } };
    },
  });

  return [findTools, enableToolset];
}

/**
 * Adds a profile to a session's list; a concurrent change to the list (another enable_toolset) is read
 * again and kept: the update applies only to the list it read.
 */
async function addProfile(
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  profile: ProfileName,
): Promise<string[]> {
  for (;;) {
    const row = await db
      .selectFrom('mcp_sessions')
      .select('profiles')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) throw fail('mcp_session_not_found');
    const profiles = JSON.parse(row.profiles) as string[];
    if (profiles.includes(profile)) return profiles;
    profiles.push(profile);
    const updated = await db
      .updateTable('mcp_sessions')
      .set({ profiles: JSON.stringify(profiles) })
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('profiles', '=', row.profiles)
      .executeTakeFirst();
    if (Number(updated.numUpdatedRows) > 0) return profiles;
  }
}
