// Building blocks of resource schemas: each record type declares what the API returns once (TypeBox), and
// the operation responses, MCP outputSchema, OpenAPI components and domain event schemas derive from it.
import {
  type SchemaOptions,
  type TObject,
  type TProperties,
  type TSchema,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';
import { MapOf } from './schema.ts';

/**
 * A resource as the API returns it: exactly these fields (a field a mapper adds without declaring it fails
 * the response check). `title` names its OpenAPI component (Contact, SupportTicket).
 */
export function Resource<T extends TProperties>(
  title: string,
  properties: T,
  options: { description?: string } = {},
): TObject<T> {
  return Type.Object(properties, { ...options, title, additionalProperties: false });
}

/** A nested object of a resource (an author, a line item): closed like the resource. */
export function Shape<T extends TProperties>(properties: T, options: SchemaOptions = {}): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** The value or null. */
export const Nullable = <T extends TSchema>(schema: T, options: SchemaOptions = {}) =>
  Type.Union([schema, Type.Null()], options);

const EXAMPLE_TIME = '2026-11-21T12:00:00.000Z';

/** An ISO 8601 UTC timestamp with milliseconds. */
export const Timestamp = (description?: string) =>
  Type.String({ format: 'date-time', examples: [EXAMPLE_TIME], ...(description ? { description } : {}) });

export const NullableTimestamp = (description?: string) =>
  Nullable(
    Type.String({ format: 'date-time', examples: [EXAMPLE_TIME] }),
    description ? { description } : {},
  );

/** A calendar date, YYYY-MM-DD. */
export const DateOnly = (description?: string) =>
  Type.String({ format: 'date', examples: ['2026-12-01'], ...(description ? { description } : {}) });

/** A record ID of the given prefix (con, cmp, tsk), with a real-looking example. */
export const RecordId = (prefix: string, description?: string) =>
  Type.String({ examples: [exampleId(prefix)], ...(description ? { description } : {}) });

export const exampleId = (prefix: string) => `${prefix}_01JDB3Y5Q0ZK8X4M2N7P9R6T3V`;

/** Text with an example value. */
export const Text = (example: string, description?: string) =>
  Type.String({ examples: [example], ...(description ? { description } : {}) });

export const NullableText = (example: string, description?: string) =>
  Nullable(Type.String({ examples: [example] }), description ? { description } : {});

/** A string enum (JSON Schema `enum`), typed as the union of its values. */
export function Enum<T extends string>(
  values: readonly T[],
  options: { description?: string } = {},
): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

/** Money in the smallest currency unit. */
export const Cents = (description?: string) =>
  Type.Integer({ examples: [125000], ...(description ? { description } : {}) });

export const Currency = Type.String({
  pattern: '^[A-Z]{3}$',
  examples: ['USD'],
  description: 'ISO 4217 code.',
});

/** Any JSON value (a user's own data: CMS entry fields, event payloads). */
export const AnyJson = (description?: string) => Type.Unknown(description ? { description } : {});

/** Scalar custom field values, as stored (null removes a key on write, so it never appears). */
export const FieldValues = (description = 'User-defined fields: string, number or boolean values.') =>
  MapOf(Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), {
    description,
    examples: [{ tier: 'gold', seats: 25 }],
  });

/** created_at and updated_at of every record. */
export const timestamps = {
  created_at: Timestamp(),
  updated_at: Timestamp(),
};
