import { Type } from '@sinclair/typebox';
import { MODULES, SCOPES } from '../../core/catalogue.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { Enum, RecordId, Resource, Text } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';

/** What the calling credential may do: its workspace, its scopes and the workspace's enabled modules. */
const MeSchema = Resource('CredentialContext', {
  workspace: Type.Object(
    { id: RecordId('ws'), name: Text('Northwind Design') },
    { additionalProperties: false },
  ),
  credential: Type.Object(
    {
      id: Type.Union([RecordId('cred'), Type.Null()]),
      kind: Enum(['api_key', 'mcp_token']),
      name: Text('Console key'),
    },
    { additionalProperties: false },
  ),
  scopes: Type.Array(Type.String({ examples: ['bi:read'] }), {
    description: 'The scopes this credential holds, sorted.',
  }),
  modules: Type.Array(Type.String({ examples: ['product_analytics_bi'] }), {
    description: 'The modules enabled for the workspace: routes of any other answer module_not_enabled.',
  }),
});

/**
 * GET /v1/me: a client (the console) learns what to show before calling anything else. Any scope is enough,
 * so every working credential can ask; it reveals only the caller's own grants.
 */
export const getCurrentCredential = defineOperation({
  name: 'get_current_credential',
  module: 'workspace',
  scopes: [...SCOPES],
  scopeMode: 'any',
  kind: 'read',
  extension: true,
  summary: 'Describe the calling credential',
  description:
    "The calling credential's workspace (id, name), the credential (id, kind, name), the scopes it holds and " +
    'the modules enabled for the workspace. Use it to decide which operations can succeed before calling them.',
  input: Strict({}),
  rest: { method: 'GET', path: '/v1/me' },
  responseKey: 'me',
  response: Type.Object({ me: MeSchema }, { additionalProperties: false }),
  handler: async (ctx) => ({
    body: {
      me: {
        workspace: { id: ctx.workspaceId, name: ctx.workspaceName },
        credential: {
          id: ctx.actor.credentialId,
          kind: ctx.actor.type === 'mcp_token' ? 'mcp_token' : 'api_key',
          name: ctx.actor.name,
        },
        scopes: [...ctx.scopes].sort(),
        modules: MODULES.filter((module) => ctx.enabledModule(module)),
      },
    },
  }),
});
