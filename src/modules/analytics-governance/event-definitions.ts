import { Type } from '@sinclair/typebox';
import { diffFields, inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../core/pagination.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { AnalyticsEventSchema, EVENT_NAME_PATTERN } from './governance-schemas.ts';
import {
  eventsByName,
  insertEventDefinition,
  listEventDefinitions,
  propertiesByName,
  toEventDefinition,
  updateEventDefinitionRow,
} from './governance-store.ts';
import type { AnalyticsEventsTable } from './governance-tables.ts';

export const eventRecord = defineRecordType({
  type: 'analytics_event',
  module: 'analytics_governance',
  table: 'analytics_events',
  collection: '/v1/analytics/events',
  key: 'event',
  readScope: 'analytics:read',
  schema: AnalyticsEventSchema,
  toResource: toEventDefinition,
});

export const app = Type.String({
  minLength: 1,
  maxLength: 100,
});
const status = Enum(['active', 'deprecated'] as const);

export const defineEvent = defineOperation({
  name: 'define_event',
  module: 'analytics_governance',
  scopes: ['analytics:write'],
  kind: 'create',
  upsert: true,
  creates: 'analytics_event',
  summary: 'Define an application event',
  description:
    'Defines or redefines (by app and name) an application event: description, properties (defined property names, each required or not) and status. Tracking plans list events by name; validate_event checks events against them. Answers 201 when created, 200 when changed. Emits analytics_event.defined.',
  input: Strict({
    app,
    name: Type.String({
      pattern: EVENT_NAME_PATTERN,
      maxLength: 200,
      description: 'Dotted, e.g. order.completed.',
      examples: ['order.completed'],
    }),
    description: Type.Optional(Type.String({ maxLength: 2000 })),
    properties: Type.Optional(
      Type.Array(
        Strict({
          name: Type.String({ minLength: 1, maxLength: 100 }),
          required: Type.Optional(Type.Boolean({ default: false })),
        }),
        { maxItems: 200 },
      ),
    ),
    status: Type.Optional(status),
  }),
  rest: { method: 'POST', path: '/v1/analytics/events' },
  responseKey: 'event',
  handler: async (ctx, input) => {
    const properties = (input.properties ?? []).map((p) => ({ name: p.name, required: p.required ?? false }));
    const names = properties.map((p) => p.name);
    const duplicate = names.findIndex((name, i) => names.indexOf(name) !== i);
    if (duplicate >= 0)
      throw validationFailed([{ field: `properties[${duplicate}].name`, message: 'is listed twice' }]);
    const defined = await propertiesByName(ctx.db, ctx.workspaceId, names);
    const missing = names.map((name, i) => ({ name, i })).filter(({ name }) => !defined.has(name));
    if (missing.length) {
      throw validationFailed(
        missing.map(({ i }) => ({
          field: `properties[${i}].name`,
          message: 'is not a defined property (define_property)',
        })),
      );
    }
    const existing = (await eventsByName(ctx.db, ctx.workspaceId, input.app, [input.name])).get(input.name);
    const row: AnalyticsEventsTable = {
      workspace_id: ctx.workspaceId,
      id: existing?.id ?? newId('aevt'),
      app: input.app,
      name: input.name,
      description: input.description ?? null,
      properties: JSON.stringify(properties),
      status: input.status ?? 'active',
      created_at: existing?.created_at ?? ctx.now,
      updated_at: ctx.now,
    };
    if (existing) {
      const { workspace_id: _w, id: _i, created_at: _c, ...changes } = row;
      await updateEventDefinitionRow(ctx.db, ctx.workspaceId, row.id, changes);
    } else {
      await insertEventDefinition(ctx.db, row);
    }
    const event = toEventDefinition(row);
    // A definition replaces the previous one: an update names the columns whose value it changed.
    const changedFields = existing
      ? diffFields(existing, row, ['description', 'properties', 'status']).changed
      : inputFields(input);
    ctx.audit({
      targetType: 'analytics_event',
      targetId: row.id,
      action: existing ? 'update' : 'create',
      changedFields,
    });
    ctx.emit({
      name: 'analytics_event.defined',
      targetType: 'analytics_event',
      targetId: row.id,
      data: event,
    });
    return { body: { event }, createdId: row.id, ...(existing ? { status: 200 } : {}) };
  },
});

export const listEvents = defineOperation({
  name: 'list_events',
  module: 'analytics_governance',
  scopes: ['analytics:read'],
  kind: 'read',
  summary: 'List application event definitions',
  description:
    'Lists defined application events with their properties, newest first; query matches name and description.',
  input: Strict({
    app: Type.Optional(app),
    status: Type.Optional(status),
    query: Type.Optional(Type.String({ minLength: 1 })),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/analytics/events' },
  responseKey: 'events',
  handler: async (ctx, input) => {
    const page = await listEventDefinitions(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_events', input),
    );
    return { body: listBody('events', page) };
  },
});
