import { Type } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
  pageInput,
  pageRequest,
} from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { pageBody } from '../../core/response-schema.ts';
import { MapOf, Strict } from '../../core/schema.ts';
import { BuiltinEventTypeSchema, IntegrationEventTypeSchema } from './integration-schemas.ts';
import {
  customEventTypesAfter,
  findEventTypeByKey,
  insertEventType,
  toEventType,
} from './integrations-store.ts';

export const eventTypeRecord = defineRecordType({
  type: 'integration_event_type',
  module: 'integrations',
  table: 'integration_event_types',
  collection: '/v1/integrations/events',
  key: 'event_type',
  readScope: 'integrations:read',
  schema: IntegrationEventTypeSchema,
  toResource: toEventType,
});

export const EVENT_KEY_PATTERN = '^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)+$';
const schemaChecker = new Ajv({ strict: false, allErrors: true });

function plainSchema(schema: unknown): Record<string, unknown> | null {
  return schema ? (JSON.parse(JSON.stringify(schema)) as Record<string, unknown>) : null;
}

export const listEventTypes = defineOperation({
  name: 'list_integration_event_types',
  module: 'integrations',
  scopes: ['integrations:read'],
  kind: 'read',
  summary: 'List integration event types',
  description:
    "Lists the event types webhook endpoints can subscribe to, by key: every domain event the service emits (source builtin, with a description and, where declared, its data's JSON Schema) plus those this workspace registered (source custom).",
  input: Strict({
    source: Type.Optional(Enum(['builtin', 'custom'] as const)),
    query: Type.Optional(
      Type.String({ minLength: 1, maxLength: 200, description: 'Matches key and description.' }),
    ),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/integrations/events' },
  responseKey: 'event_types',
  response: pageBody('event_types', Type.Union([BuiltinEventTypeSchema, IntegrationEventTypeSchema])),
  handler: async (ctx, input) => {
    const request = pageRequest('list_integration_event_types', input);
    const after = request.cursor
      ? (decodeCursor(request.operation, request.filters, request.cursor, ['string'])[0] as string)
      : '';
    const limit = request.limit ?? DEFAULT_PAGE_SIZE;
    const text = input.query?.toLowerCase();
    const matches = (key: string, description: string) =>
      key > after && (!text || key.toLowerCase().includes(text) || description.toLowerCase().includes(text));
    const builtin =
      input.source === 'custom'
        ? []
        : [...ctx.eventTypes.values()]
            .filter((t) => matches(t.name, t.description))
            .map((t) => ({
              key: t.name,
              description: t.description,
              source: 'builtin' as const,
              schema: plainSchema(t.schema),
            }));
    let custom: ReturnType<typeof toEventType>[] = [];
    if (input.source !== 'builtin') {
      const rows = await customEventTypesAfter(ctx.db, ctx.workspaceId, after);
      custom = rows.map(toEventType).filter((t) => matches(t.key, t.description));
    }
    const all = [...builtin, ...custom].sort((a, b) => (a.key < b.key ? -1 : 1));
    const items = all.slice(0, limit);
    const body: Record<string, unknown> = { event_types: items };
    if (all.length > limit)
      body.next_cursor = encodeCursor(request.operation, request.filters, [items[items.length - 1]!.key]);
    return { body };
  },
});

export const registerEventType = defineOperation({
  name: 'register_integration_event_type',
  module: 'integrations',
  scopes: ['integrations:write'],
  kind: 'create',
  creates: 'integration_event_type',
  summary: 'Register a custom integration event type',
  description:
    "Registers a custom event type webhook endpoints can subscribe to: a unique dotted key (resource.action, not a built-in one), a description and optionally its data's JSON Schema (must compile). Emits integration_event_type.registered.",
  input: Strict({
    key: Type.String({
      pattern: EVENT_KEY_PATTERN,
      maxLength: 100,
      description: 'E.g. order.shipped.',
      examples: ['order.shipped'],
    }),
    description: Type.String({ minLength: 1, maxLength: 1000 }),
    schema: Type.Optional(MapOf(Type.Unknown(), { description: 'Draft 2020-12 or 07.' })),
  }),
  rest: { method: 'POST', path: '/v1/integrations/events' },
  responseKey: 'event_type',
  handler: async (ctx, input) => {
    if (ctx.eventTypes.has(input.key)) {
      throw validationFailed([{ field: 'key', message: 'is a built-in event type' }]);
    }
    const existing = await findEventTypeByKey(ctx.db, ctx.workspaceId, input.key);
    if (existing)
      throw validationFailed([{ field: 'key', message: `is already registered (${existing.id})` }]);
    if (input.schema && !schemaChecker.validateSchema(input.schema)) {
      const problem = schemaChecker.errors?.[0];
      throw validationFailed([
        {
          field: 'schema',
          message:
            `is not a valid JSON Schema: ${problem?.instancePath || '(root)'} ${problem?.message ?? ''}`.trim(),
        },
      ]);
    }
    const row = {
      workspace_id: ctx.workspaceId,
      id: newId('iet'),
      key: input.key,
      description: input.description,
      schema: input.schema ? JSON.stringify(input.schema) : null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertEventType(ctx.db, row);
    const eventType = toEventType(row);
    ctx.audit({ targetType: 'integration_event_type', targetId: row.id, changedFields: inputFields(input) });
    ctx.emit({
      name: 'integration_event_type.registered',
      targetType: 'integration_event_type',
      targetId: row.id,
      data: eventType,
    });
    return { body: { event_type: eventType }, createdId: row.id };
  },
});
