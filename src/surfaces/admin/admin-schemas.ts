// Request and response bodies of the operator API (/admin/v1), declared once: the routes validate with
// them, the response check and /admin/openapi.json read them (admin-api.ts).
import { Type } from '@sinclair/typebox';
import { MODULES, SCOPES } from '../../core/catalogue.ts';
import { RequestRecordSchema } from '../../core/platform-schemas.ts';
import {
  Enum,
  exampleId,
  Nullable,
  NullableTimestamp,
  RecordId,
  Resource,
  Shape,
  Text,
  Timestamp,
} from '../../core/resource-schema.ts';
import { MapOf, Strict } from '../../core/schema.ts';

// Enums, not unions of literals: a wrong value's field error lists every valid one.
const moduleName = Enum(MODULES);
const scope = Enum(SCOPES);
const mcpAuthMethod = Enum(['mcp_token', 'api_key'] as const);
const credentialKind = Enum(['api_key', 'mcp_token'] as const, {
  description: 'api_key (REST and MCP) or mcp_token (MCP only).',
});
const nullableCount = Nullable(Type.Integer({ minimum: 0 }));

export const createWorkspaceBody = Strict({
  name: Type.String({ minLength: 1, maxLength: 200, examples: ['Acme Corp'] }),
  modules: Type.Optional(
    Type.Array(moduleName, { uniqueItems: true, description: 'Enabled modules; default all.' }),
  ),
});

export const updateWorkspaceBody = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, examples: ['Acme Corp'] })),
    modules: Type.Optional(
      MapOf(Type.Boolean(), {
        description: 'Module name -> enabled; merged into the current set.',
        examples: [{ crm: true, cms: false }],
      }),
    ),
    mcp_auth_methods: Type.Optional(Type.Array(mcpAuthMethod, { uniqueItems: true })),
    rate_limit_per_minute: Type.Optional(
      Nullable(Type.Integer({ minimum: 1 }), { description: 'null: unlimited.' }),
    ),
    billing: Type.Optional(
      Strict({ credit_units: Type.Optional(nullableCount), monthly_cap_units: Type.Optional(nullableCount) }),
    ),
    entitlements: Type.Optional(
      MapOf(nullableCount, {
        description:
          'Record type -> maximum count; null removes the limit (a type with a default cap, bi_scheduled_artifact: 200 live, returns to it).',
        examples: [{ contact: 1000 }],
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const createCredentialBody = Strict({
  kind: credentialKind,
  name: Type.String({ minLength: 1, maxLength: 200, examples: ['Sales assistant'] }),
  scopes: Type.Array(scope, { minItems: 1, uniqueItems: true, examples: [['crm:read', 'crm:write']] }),
});

export const WorkspaceSchema = Resource('Workspace', {
  id: RecordId('ws'),
  name: Text('Acme Corp'),
  modules: Shape(Object.fromEntries(MODULES.map((m) => [m, Type.Boolean()])), {
    description: 'Every module, enabled or not.',
    examples: [Object.fromEntries(MODULES.map((m) => [m, true]))],
  }),
  mcp_auth_methods: Type.Array(mcpAuthMethod),
  rate_limit_per_minute: Nullable(Type.Integer({ examples: [6000] }), {
    description: 'Calls per minute; null: unlimited.',
  }),
  billing: Shape({ credit_units: nullableCount, monthly_cap_units: nullableCount }),
  entitlements: MapOf(nullableCount, {
    description: 'Record type -> maximum count.',
    examples: [{ contact: 1000 }],
  }),
  created_at: Timestamp(),
  updated_at: Timestamp(),
});

export const CredentialSchema = Resource('Credential', {
  id: RecordId('key'),
  kind: credentialKind,
  name: Text('Sales assistant'),
  scopes: Type.Array(Type.String(), { examples: [['crm:read', 'crm:write']] }),
  created_at: Timestamp(),
});

export const CreatedCredentialSchema = Shape({
  credential: CredentialSchema,
  token: Type.String({
    description: 'The secret; shown only in this response.',
    examples: ['wos_sk_9rD3kZ1xQ8vN2bL5mT7yW4cH6jF0aP-sE_uG3iK8oR1'],
  }),
});

export const OperatorRequestRecordSchema = Resource(
  'OperatorRequestRecord',
  { workspace_id: RecordId('ws'), ...RequestRecordSchema.properties },
  { description: 'Everything recorded for one request ID, and the workspace it belongs to.' },
);

export const workspaceIdParam = Type.String({ minLength: 1, examples: [exampleId('ws')] });

export const OutboxFailureSchema = Resource(
  'OutboxFailure',
  {
    id: RecordId('ofl'),
    workspace_id: RecordId('ws'),
    consumer: Type.String({ description: 'The event consumer.', examples: ['webhook-deliveries'] }),
    event_id: Type.String({ description: 'The outbox event.', examples: [exampleId('evt')] }),
    event_name: Type.String({ examples: ['contact.created'] }),
    state: Enum(['failing', 'given_up'] as const, {
      description:
        'failing: the relay hands the event to the consumer again on every pass. given_up: the consumer ' +
        'failed on it for WOS_OUTBOX_GIVE_UP_MINUTES and will not get it again.',
    }),
    attempts: Type.Integer({ minimum: 1 }),
    first_failed_at: Timestamp(),
    last_failed_at: Timestamp(),
    last_error: Type.String({ description: "The last attempt's error message (at most 500 characters)." }),
    gave_up_at: NullableTimestamp('When the relay gave the event up for this consumer.'),
  },
  { description: 'An event an event consumer failed on.' },
);
