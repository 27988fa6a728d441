import { Type } from '@sinclair/typebox';
import { MODULES, SCOPES } from '../../core/catalogue.ts';
import { Strict } from '../../core/schema.ts';

const moduleName = Type.Union(MODULES.map((m) => Type.Literal(m)));
const nullableCount = Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]);

export const createWorkspaceBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  modules: Type.Optional(Type.Array(moduleName, { uniqueItems: true, description: 'Enabled modules; default all.' })),
});

export const updateWorkspaceBody = Strict({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  modules: Type.Optional(Type.Record(Type.String(), Type.Boolean(), { additionalProperties: false })),
  mcp_auth_methods: Type.Optional(
    Type.Array(Type.Union([Type.Literal('mcp_token'), Type.Literal('api_key')]), { uniqueItems: true }),
  ),
  rate_limit_per_minute: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()])),
  billing: Type.Optional(
    Strict({ credit_units: Type.Optional(nullableCount), monthly_cap_units: Type.Optional(nullableCount) }),
  ),
  entitlements: Type.Optional(Type.Record(Type.String(), nullableCount, { additionalProperties: false })),
});

export const createCredentialBody = Strict({
  kind: Type.Union([Type.Literal('api_key'), Type.Literal('mcp_token')]),
  name: Type.String({ minLength: 1, maxLength: 200 }),
  scopes: Type.Array(Type.Union(SCOPES.map((s) => Type.Literal(s))), { minItems: 1, uniqueItems: true }),
});
