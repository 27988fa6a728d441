// JSON Schemas compiled from governance definitions: validate_event checks events with Ajv, never by hand.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { canonicalJson } from '../../core/canonical-json.ts';
import { addInputFormats, DATE_TIME_RANGE } from '../../core/schema.ts';
import type { EventProperty } from './governance-store.ts';
import type { AnalyticsPropertiesTable, PropertyType } from './governance-tables.ts';

// Date-times in event properties are bounded like every other date-time input.
const ajv = addInputFormats(new Ajv({ allErrors: true, strict: false, addUsedSchema: false }));

export function typeSchema(type: PropertyType): Record<string, unknown> {
  return type === 'datetime' ? { type: 'string', format: 'date-time' } : { type };
}

export function propertySchema(
  row: Pick<AnalyticsPropertiesTable, 'type' | 'enum_values' | 'pattern'>,
): Record<string, unknown> {
  return {
    ...typeSchema(row.type),
    ...(row.enum_values ? { enum: JSON.parse(row.enum_values) } : {}),
    ...(row.pattern ? { pattern: row.pattern } : {}),
  };
}

/** The schema of an event's properties object: known properties only, required ones required. */
export function eventSchema(properties: EventProperty[], definitions: Map<string, AnalyticsPropertiesTable>) {
  const schema: Record<string, unknown> = {};
  for (const property of properties) {
    const definition = definitions.get(property.name);
    schema[property.name] = definition ? propertySchema(definition) : {};
  }
  return {
    type: 'object',
    properties: schema,
    required: properties.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

// Compiled validators, by schema text; bounded so changing definitions cannot grow memory for ever.
const cache = new Map<string, ValidateFunction>();
const CACHE_SIZE = 500;

export function compiled(schema: Record<string, unknown>): ValidateFunction {
  const key = canonicalJson(schema);
  let validate = cache.get(key);
  if (!validate) {
    validate = ajv.compile(schema);
    if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value!);
    cache.set(key, validate);
  }
  return validate;
}

/** One error per property and problem, worded for the caller, with field properties.<name>. */
export function describeErrors(
  errors: ErrorObject[] | null | undefined,
): { field: string; message: string }[] {
  return (errors ?? []).map((error) => {
    const params = error.params as Record<string, unknown>;
    const name = error.instancePath.split('/').filter(Boolean)[0];
    const field = (property: unknown) => `properties.${String(property)}`;
    switch (error.keyword) {
      case 'required':
        return { field: field(params.missingProperty), message: 'is required by the event definition' };
      case 'additionalProperties':
        return { field: field(params.additionalProperty), message: 'is not a property of this event' };
      case 'type':
        return { field: field(name), message: `must be of type ${String(params.type)}` };
      case 'enum':
        return {
          field: field(name),
          message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`,
        };
      case 'pattern':
        return { field: field(name), message: `must match the pattern ${String(params.pattern)}` };
      case 'format':
        return { field: field(name), message: `must be an ISO 8601 date-time ${DATE_TIME_RANGE}` };
      default:
        return { field: name ? field(name) : 'properties', message: error.message ?? 'is invalid' };
    }
  });
}
