import { Type } from '@sinclair/typebox';
import { diffFields, inputFields } from '../../core/changes.ts';
import { defineOperation } from '../../core/define-operation.ts';
import { validationFailed } from '../../core/errors.ts';
import { newId } from '../../core/ids.ts';
import { defineRecordType } from '../../core/record-types.ts';
import { Enum } from '../../core/resource-schema.ts';
import { Strict } from '../../core/schema.ts';
import { AnalyticsPropertySchema } from './governance-schemas.ts';
import { insertProperty, propertiesByName, toProperty, updatePropertyRow } from './governance-store.ts';
import type { AnalyticsPropertiesTable, PropertyType } from './governance-tables.ts';
import { compiled, typeSchema } from './property-schema.ts';

export const propertyRecord = defineRecordType({
  type: 'analytics_property',
  module: 'analytics_governance',
  table: 'analytics_properties',
  collection: '/v1/analytics/properties',
  key: 'property',
  readScope: 'analytics:read',
  schema: AnalyticsPropertySchema,
  toResource: toProperty,
});

const TYPES: PropertyType[] = ['string', 'number', 'integer', 'boolean', 'datetime', 'object', 'array'];

function checkRules(type: PropertyType, values: unknown[] | undefined, pattern: string | undefined): void {
  if (pattern !== undefined) {
    if (type !== 'string')
      throw validationFailed([{ field: 'pattern', message: 'applies to string properties only' }]);
    try {
      new RegExp(pattern, 'u');
    } catch {
      throw validationFailed([{ field: 'pattern', message: 'is not a valid regular expression' }]);
    }
  }
  if (values) {
    const validate = compiled(typeSchema(type));
    const wrong = values.map((value, i) => ({ value, i })).filter(({ value }) => !validate(value));
    if (wrong.length)
      throw validationFailed(wrong.map(({ i }) => ({ field: `enum[${i}]`, message: `must be a ${type}` })));
  }
}

export const defineProperty = defineOperation({
  name: 'define_property',
  module: 'analytics_governance',
  scopes: ['analytics:write'],
  kind: 'create',
  upsert: true,
  creates: 'analytics_property',
  summary: 'Define an analytics property',
  description:
    'Defines or redefines (by name) a property application events may carry: type, description, and optionally allowed values (enum) and a pattern. Event definitions reference properties by name. Answers 201 when created, 200 when changed. Emits analytics_property.defined.',
  input: Strict({
    name: Type.String({
      pattern: '^[a-z][a-z0-9_]*$',
      maxLength: 100,
      description: 'snake_case, e.g. plan_tier.',
      examples: ['plan_tier'],
    }),
    type: Enum(TYPES),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    enum: Type.Optional(
      Type.Array(Type.Union([Type.String(), Type.Number(), Type.Boolean()]), {
        minItems: 1,
        maxItems: 500,
        uniqueItems: true,
      }),
    ),
    pattern: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'Regular expression; strings only.' }),
    ),
  }),
  rest: { method: 'POST', path: '/v1/analytics/properties' },
  responseKey: 'property',
  handler: async (ctx, input) => {
    checkRules(input.type, input.enum, input.pattern);
    const existing = (await propertiesByName(ctx.db, ctx.workspaceId, [input.name])).get(input.name);
    const row: AnalyticsPropertiesTable = {
      workspace_id: ctx.workspaceId,
      id: existing?.id ?? newId('aprop'),
      name: input.name,
      type: input.type,
      description: input.description ?? null,
      enum_values: input.enum ? JSON.stringify(input.enum) : null,
      pattern: input.pattern ?? null,
      created_at: existing?.created_at ?? ctx.now,
      updated_at: ctx.now,
    };
    if (existing) {
      const { workspace_id: _w, id: _i, created_at: _c, ...changes } = row;
      await updatePropertyRow(ctx.db, ctx.workspaceId, row.id, changes);
    } else {
      await insertProperty(ctx.db, row);
    }
    const property = toProperty(row);
    // A definition replaces the previous one: an update names the columns whose value it changed.
    const changedFields = existing
      ? diffFields(existing, row, ['type', 'description', 'enum_values', 'pattern']).changed
      : inputFields(input);
    ctx.audit({
      targetType: 'analytics_property',
      targetId: row.id,
      action: existing ? 'update' : 'create',
      changedFields,
    });
    ctx.emit({
      name: 'analytics_property.defined',
      targetType: 'analytics_property',
      targetId: row.id,
      data: property,
    });
    return { body: { property }, createdId: row.id, ...(existing ? { status: 200 } : {}) };
  },
});
