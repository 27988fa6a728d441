import {
  type SchemaOptions,
  type Static,
  type TObject,
  type TProperties,
  type TSchema,
  type TUnsafe,
  Type,
} from '@sinclair/typebox';
import { Ajv, type ErrorObject, type FormatDefinition, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { type FieldError, validationFailed } from './errors.ts';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
type AddFormats = (ajv: Ajv) => Ajv;
const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ??
  (addFormatsModule as unknown as AddFormats);

/**
 * Two validators over the same schemas. JSON bodies and MCP arguments are never coerced; REST query
 * strings are coerced to the schema's types. Neither removes unknown properties: they are errors.
 */
function buildAjv(coerce: boolean, useDefaults = true): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    removeAdditional: false,
    useDefaults,
    coerceTypes: coerce ? 'array' : false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Every date and date-time input names an instant from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z
 * (a date: its midnight in UTC), so a four-digit UTC year is stored and no computation walks from year 1;
 * a text JavaScript cannot read (a leap second, a "+01" offset) is refused here rather than failing later.
 */
export const EARLIEST_INSTANT = Date.UTC(1900, 0, 1);
export const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
export const DATE_TIME_RANGE = 'from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59Z';
export const withinDateTimeRange = (instant: number): boolean =>
  instant >= EARLIEST_INSTANT && instant <= LATEST_INSTANT; // NaN is outside

/** ajv-formats with `date` and `date-time` bounded to the range above: every input validator uses it. */
export function addInputFormats(ajv: Ajv): Ajv {
  if (!ajv.formats['date-time']) addFormats(ajv);
  const instants: Record<string, (text: string) => number> = {
    'date-time': (text) => Date.parse(text),
    date: (text) => Date.parse(`${text}T00:00:00Z`),
  };
  for (const [name, instant] of Object.entries(instants)) {
    const base = ajv.formats[name] as FormatDefinition<string>;
    const valid = base.validate as RegExp | ((text: string) => boolean);
    const wellFormed = typeof valid === 'function' ? valid : (text: string) => valid.test(text);
    ajv.addFormat(name, {
      type: 'string',
      validate: (text) => wellFormed(text) && withinDateTimeRange(instant(text)),
      ...(base.compare ? { compare: base.compare } : {}),
    });
  }
  return ajv;
}

const strictAjv = addInputFormats(buildAjv(false));
const coercingAjv = addInputFormats(buildAjv(true));
// Response bodies are checked, never changed: no defaults filled in.
const responseAjv = buildAjv(false, false);

export interface CompiledSchema {
  strict: ValidateFunction;
  coercing: ValidateFunction;
}

export function compileSchema(schema: TSchema): CompiledSchema {
  return { strict: strictAjv.compile(schema), coercing: coercingAjv.compile(schema) };
}

/** A validator of a response body (the pipeline's response check). */
export function compileResponseSchema(schema: TSchema): ValidateFunction {
  return responseAjv.compile(schema);
}

/** A strict object: unknown properties are rejected. Use for every object in an input schema. */
export function Strict<T extends TProperties>(
  properties: T,
  options: { description?: string } = {},
): TObject<T> {
  return Type.Object(properties, { ...options, additionalProperties: false });
}

/** A free-form map of scalar values (custom_fields, metadata): keys are the user's, values stay typed. */
export const FreeFields = (description?: string) =>
  MapOf(
    Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]),
    description ? { description } : {},
  );

/**
 * A map whose keys are the user's and whose values follow `value`: declared with `additionalProperties`
 * (never `patternProperties`, which MCP clients warn on), typed as a Record.
 */
export function MapOf<V extends TSchema>(
  value: V,
  options: SchemaOptions = {},
): TUnsafe<Record<string, Static<V>>> {
  return Type.Unsafe<Record<string, Static<V>>>({ ...options, type: 'object', additionalProperties: value });
}

/** Ajv's instance path (/line_items/0/unit_amount_cents) as the input path (line_items[0].unit_amount_cents). */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (child !== undefined) parts.push(child);
  let out = '';
  for (const part of parts) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

const RANGES: Record<string, string> = {
  'date-time': DATE_TIME_RANGE,
  date: 'from 1900-01-01 to 9999-12-31',
};

function describe(error: ErrorObject): FieldError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { field: fieldPath(error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return {
        field: fieldPath(error.instancePath, String(params.additionalProperty)),
        message: 'is not a recognized field',
      };
    case 'enum':
      return {
        field: fieldPath(error.instancePath) || '(body)',
        message: `must be one of: ${(params.allowedValues as unknown[]).join(', ')}`,
      };
    case 'format': {
      const format = String(params.format);
      const range = RANGES[format] ? ` ${RANGES[format]}` : '';
      return { field: fieldPath(error.instancePath), message: `must be a valid ${format}${range}` };
    }
    case 'type':
      return {
        field: fieldPath(error.instancePath) || '(body)',
        message: `must be of type ${String(params.type)}`,
      };
    default:
      return { field: fieldPath(error.instancePath) || '(body)', message: error.message ?? 'is invalid' };
  }
}

/** Turns Ajv errors into field_errors, one per field and problem, skipping anyOf noise when a clearer error exists. */
export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  const specific = (errors ?? []).filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'oneOf');
  for (const error of specific.length ? specific : (errors ?? [])) {
    const fieldError = describe(error);
    const key = `${fieldError.field}\u0000${fieldError.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(fieldError);
    }
  }
  return out;
}

/** The most levels a JSON body or a tool's input may nest: {} and [] are one level each, {"a": {}} two. */
export const MAX_NESTING = 64;
/** A value nested too deep is named by the first steps of its path (the whole path may be 10,000 steps). */
const NAMED_STEPS = 3;

/**
 * The path (at most its first three steps, after `path`) of a value nested deeper than `limit` levels, or
 * undefined when none is. Walks with a stack of its own and never below the limit, so a value nested
 * 10,000 deep costs what 65 levels cost: recursion would overflow the call stack (a 500) first.
 */
export function nestedTooDeep(value: unknown, limit = MAX_NESTING, path = ''): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const stack: { node: object; depth: number; at: string; steps: number }[] = [
    { node: value, depth: 1, at: path, steps: 0 },
  ];
  while (stack.length) {
    const { node, depth, at, steps } = stack.pop()!;
    if (depth > limit) return at || '(body)';
    // Only the first steps are spelled out: deeper children keep their parent's path.
    const named = steps < NAMED_STEPS;
    const visit = (child: unknown, key: string | number) => {
      if (typeof child !== 'object' || child === null) return;
      const step = !named ? at : typeof key === 'number' ? `${at}[${key}]` : at ? `${at}.${key}` : key;
      stack.push({ node: child, depth: depth + 1, at: step, steps: steps + 1 });
    };
    if (Array.isArray(node)) for (let i = 0; i < node.length; i++) visit(node[i], i);
    else for (const key in node) visit((node as Record<string, unknown>)[key], key);
  }
  return undefined;
}

/**
 * The field error of a value nested deeper than `limit` (MAX_NESTING, or above it by an envelope's levels,
 * as an MCP message's are), or none.
 */
export function nestingFieldErrors(value: unknown, limit = MAX_NESTING): FieldError[] {
  const at = nestedTooDeep(value, limit);
  return at === undefined
    ? []
    : [
        {
          field: at,
          message: `is nested too deeply: JSON input may nest at most ${MAX_NESTING} levels ({} and [] are one level each)`,
        },
      ];
}

/** Throws validation_failed when the input nests deeper than MAX_NESTING levels. */
export function assertNesting(value: unknown): void {
  const errors = nestingFieldErrors(value);
  if (errors.length) throw validationFailed(errors, 'The input is nested too deeply.');
}

/**
 * Whether a string or a property name anywhere in the value holds U+0000. No valid input needs NUL, and
 * PostgreSQL text cannot store it. Every call's input goes through it (a 1,000-event batch is a large
 * input), so it walks with a plain stack of containers: no recursion, whatever the nesting.
 */
export function containsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (typeof value !== 'object' || value === null) return false;
  const stack: object[] = [value];
  const holdsNul = (item: unknown): boolean => {
    if (typeof item === 'string') return item.includes('\u0000');
    if (typeof item === 'object' && item !== null) stack.push(item);
    return false;
  };
  while (stack.length) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (const item of node) if (holdsNul(item)) return true;
      continue;
    }
    for (const key in node) {
      if (key.includes('\u0000') || holdsNul((node as Record<string, unknown>)[key])) return true;
    }
  }
  return false;
}

/**
 * Every string or property name of the value that holds U+0000, as field errors (empty for most inputs).
 * It recurses: call it on input already held to MAX_NESTING.
 */
export function nulFieldErrors(value: unknown, path = ''): FieldError[] {
  if (!containsNul(value)) return [];
  return nulFieldsOf(value, path);
}

function nulFieldsOf(value: unknown, path: string): FieldError[] {
  const here = path || '(body)';
  if (typeof value === 'string') {
    return value.includes('\u0000')
      ? [{ field: here, message: 'must not contain the NUL character (U+0000)' }]
      : [];
  }
  if (Array.isArray(value)) return value.flatMap((item, i) => nulFieldsOf(item, `${path}[${i}]`));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const child = path ? `${path}.${key}` : key;
    if (!key.includes('\u0000')) return nulFieldsOf(item, child);
    return [{ field: here, message: 'must not have a property name containing the NUL character (U+0000)' }];
  });
}

/** Throws validation_failed when a string of the input holds U+0000. */
export function assertNoNul(value: unknown, path = ''): void {
  if (containsNul(value)) throw validationFailed(nulFieldsOf(value, path));
}

export function assertValid<T>(validate: ValidateFunction, value: unknown): T {
  assertNesting(value);
  assertNoNul(value);
  if (!validate(value)) throw validationFailed(toFieldErrors(validate.errors));
  return value as T;
}
