// The column builders of defineRecord (define-record.ts). A field says once how its column is stored (type
// family, nullability), how the API shows it (its response schema, with the codec from the column: JSON
// parsed, 0/1 as a boolean, bigint as a number), and whether creates take it (input), updates change it
// (editable: replaced, or a map merged key by key) and a list's `query` matches it (search): the chained
// calls of record-field.ts.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { withoutNulls } from './changes.ts';
import { type ColumnFamily, Field, type FieldSpec, type With } from './record-field.ts';
import { Currency, Enum, exampleId, FieldValues, Nullable, Timestamp } from './resource-schema.ts';
import { FreeFields } from './schema.ts';

type Base = {
  nullable: false;
  stored: true;
  output: true;
  input: false;
  optional: false;
  editable: false;
  patchNull: undefined;
  defaulted: false;
};

type PlainTypes<Db, Api, Value> = Base & { db: Db; api: Api; value: Value; arg: Value };

/** A field as a builder makes it: stored, shown, not yet an input. */
export type Plain<Db, Api = Db, Value = Api> = Field<PlainTypes<Db, Api, Value>>;
type Described = { description?: string };
const described = (description: string | undefined) => (description ? { description } : {});

/** The response schema of a scalar: the description on the outermost schema, as Text and NullableText do. */
function shown(
  make: (options: object) => TSchema,
  options: object,
  nullable: boolean,
  description: string | undefined,
): TSchema {
  return nullable
    ? Nullable(make(options), described(description))
    : make({ ...options, ...described(description) });
}

function field<F extends Field<any>>(
  spec: Pick<FieldSpec, 'family' | 'present' | 'accept'> & Partial<FieldSpec>,
): F {
  return new Field({
    stored: true,
    nullable: false,
    output: true,
    search: false,
    input: false,
    optional: false,
    editable: false,
    hasDefault: false,
    ...spec,
  }) as F;
}

export interface TextOptions extends Described {
  /** The response's example value. */
  example?: string;
  /** A JSON Schema string format (email, date-time), in the response and the input. */
  format?: string;
  /** Input constraints. */
  min?: number;
  max?: number;
  pattern?: string;
}

/** A text column. */
export function text(o: TextOptions = {}): Plain<string> {
  const format = o.format ? { format: o.format } : {};
  const example = o.example !== undefined ? { examples: [o.example] } : {};
  return field({
    family: 'text',
    description: o.description,
    present: (nullable, description) => shown(Type.String, { ...format, ...example }, nullable, description),
    accept: (description) =>
      Type.String({
        ...format,
        ...(o.min !== undefined ? { minLength: o.min } : {}),
        ...(o.max !== undefined ? { maxLength: o.max } : {}),
        ...(o.pattern ? { pattern: o.pattern } : {}),
        ...described(description),
      }),
  });
}

/** The ID of a record of `type` (IDs start with `prefix`): text, shown as a record ID, input as an ID. */
export function ref(type: string, prefix: string, description?: string): Plain<string> {
  return field({
    family: 'text',
    ref: type,
    description,
    present: (nullable, d) => shown(Type.String, { examples: [exampleId(prefix)] }, nullable, d),
    accept: (d) => Type.String({ minLength: 1, maxLength: 255, ...described(d) }),
  });
}

/** One of a fixed list of strings (a JSON Schema enum), typed as their union. */
export function oneOf<const V extends string>(values: readonly V[], o: Described = {}): Plain<V> {
  return field({
    family: 'text',
    description: o.description,
    present: (nullable, d) => shown((options) => Enum(values, options), {}, nullable, d),
    accept: (d) => Enum(values, described(d)),
  });
}

interface NumberOptions extends Described {
  example?: number;
  min?: number;
  max?: number;
}

const numeric =
  (make: (options: object) => TSchema, o: NumberOptions) =>
  (family: ColumnFamily): Pick<FieldSpec, 'family' | 'present' | 'accept' | 'description'> => ({
    family,
    description: o.description,
    present: (nullable, d) =>
      shown(make, o.example !== undefined ? { examples: [o.example] } : {}, nullable, d),
    accept: (d) =>
      make({
        ...(o.min !== undefined ? { minimum: o.min } : {}),
        ...(o.max !== undefined ? { maximum: o.max } : {}),
        ...described(d),
      }),
  });

/** An integer column. */
export function int(o: NumberOptions = {}): Plain<number> {
  return field({ ...numeric(Type.Integer, o)('integer'), decode: Number });
}

/** A number (integer or real column), shown as a JSON number. */
export function number(o: NumberOptions = {}): Plain<number> {
  return field({ ...numeric(Type.Number, o)('number'), decode: Number });
}

/** Largest amount of money an input takes: every sum of them stays an exact JS number. */
export const MAX_CENTS = 1_000_000_000_000_000;

/** Money in the smallest currency unit (a bigint column; PostgreSQL returns it as a string otherwise). */
export function money(o: { min?: number; description?: string } = {}): Plain<number> {
  return field({
    family: 'integer',
    description: o.description,
    present: (nullable, d) => shown(Type.Integer, { examples: [125000] }, nullable, d),
    accept: (d) => Type.Integer({ minimum: o.min ?? 0, maximum: MAX_CENTS, ...described(d) }),
    decode: Number,
  });
}

/** An ISO 4217 currency code. */
export function currency(): Plain<string> {
  return field({
    family: 'text',
    present: (nullable) => (nullable ? Nullable(Currency) : Currency),
    accept: (d) => Type.String({ pattern: '^[A-Z]{3}$', ...described(d) }),
  });
}

/** A boolean stored as 0/1 in an integer column. */
export function bool(o: Described = {}): Plain<number, boolean, boolean> {
  return field({
    family: 'integer',
    description: o.description,
    present: (nullable, d) => shown(Type.Boolean, {}, nullable, d),
    accept: (d) => Type.Boolean(described(d)),
    decode: (stored) => Boolean(stored),
    encode: (value) => (value ? 1 : 0),
  });
}

const EXAMPLE_TIME = (Timestamp().examples as string[])[0]!;

/** An ISO 8601 UTC timestamp, stored as text. */
export function timestamp(o: { example?: string; description?: string } = {}): Plain<string> {
  return field({
    family: 'text',
    description: o.description,
    present: (nullable, d) =>
      shown(Type.String, { format: 'date-time', examples: [o.example ?? EXAMPLE_TIME] }, nullable, d),
    accept: (d) => Type.String({ format: 'date-time', ...described(d) }),
  });
}

/**
 * A JSON value stored as text, shown as `schema`. `decode` turns the stored value into the shown one when
 * they differ (an invoice's line items gain their amount); the input schema defaults to `schema`.
 */
export function json<S extends TSchema, Stored = Static<S>>(
  schema: S,
  decode?: (stored: Stored) => Static<S>,
): Plain<string, Static<S>, Stored> {
  return field({
    family: 'text',
    present: (nullable, d) =>
      nullable ? Nullable(schema, described(d)) : d ? { ...schema, description: d } : schema,
    accept: () => schema,
    decode: decode
      ? (stored) => decode(JSON.parse(stored as string) as Stored)
      : (stored) => JSON.parse(stored as string),
    encode: (value) => JSON.stringify(value),
  });
}

type FieldMap = Record<string, string | number | boolean | null>;

/**
 * A map of the user's scalar fields (custom_fields, metadata), stored as JSON text. A new row keeps no null
 * value and defaults to {}; editable('merge') merges a patch key by key.
 */
export function fieldValues(
  o: Described = {},
): Field<With<PlainTypes<string, FieldMap, FieldMap>, { defaulted: true }>> {
  return field({
    family: 'text',
    description: o.description,
    hasDefault: true,
    defaultValue: {},
    present: (nullable, d) => (nullable ? Nullable(FieldValues(), described(d)) : FieldValues(d)),
    accept: (d) => FreeFields(d),
    decode: (stored) => JSON.parse(stored as string),
    encode: (value) => JSON.stringify(withoutNulls(value as FieldMap)),
  });
}

/** Not stored: computed from the row by the record's `compute` function of the same name. */
export function computed<S extends TSchema>(
  schema: S,
): Field<With<PlainTypes<never, Static<S>, never>, { stored: false }>> {
  return field({
    family: 'text',
    stored: false,
    present: () => schema,
    accept: () => schema,
  });
}
