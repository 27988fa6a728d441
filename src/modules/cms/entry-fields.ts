// A collection's field definitions, the JSON Schema built from them, and the checks entries pass.
import { type Static, Type } from '@sinclair/typebox';
import type { ValidateFunction } from 'ajv';
import type { Kysely } from 'kysely';
import type { FieldError } from '../../core/errors.ts';
import { Enum } from '../../core/resource-schema.ts';
import { compileSchema, Strict, toFieldErrors } from '../../core/schema.ts';
import type { DB } from '../../db/tables.ts';
import { entryIdsIn, liveAssetIdsIn } from './cms-store.ts';

export const FIELD_TYPES = [
  'text',
  'rich_text',
  'number',
  'boolean',
  'date',
  'url',
  'reference',
  'asset',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const fieldDefinitionInput = Strict({
  key: Type.String({
    minLength: 1,
    maxLength: 64,
    pattern: '^[a-z][a-z0-9_]*$',
  }),
  type: Enum(FIELD_TYPES, {
    description: 'reference: a CMS entry ID; asset: an asset ID; date: YYYY-MM-DD or ISO 8601 date-time.',
  }),
  label: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  required: Type.Optional(Type.Boolean({ description: 'Entries must carry a value.' })),
  list: Type.Optional(Type.Boolean({ description: 'The value is an array of the type.' })),
});

export interface FieldDefinition {
  key: string;
  type: FieldType;
  label: string | null;
  required: boolean;
  list: boolean;
}

export function normalizeDefinitions(input: Static<typeof fieldDefinitionInput>[]): FieldDefinition[] {
  return input.map((d) => ({
    key: d.key,
    type: d.type as FieldType,
    label: d.label ?? null,
    required: d.required ?? false,
    list: d.list ?? false,
  }));
}

function valueSchema(definition: FieldDefinition): Record<string, unknown> {
  const nonEmpty = definition.required && !definition.list ? { minLength: 1 } : {};
  switch (definition.type) {
    case 'text':
      return { type: 'string', maxLength: 100_000, ...nonEmpty };
    case 'rich_text':
      return { type: 'string', maxLength: 1_000_000, ...nonEmpty };
    case 'number':
      return { type: 'number' };
    case 'boolean':
      return { type: 'boolean' };
    case 'date':
      return { type: 'string', anyOf: [{ format: 'date' }, { format: 'date-time' }] };
    case 'url':
      return { type: 'string', format: 'uri', maxLength: 2048 };
    case 'reference':
    case 'asset':
      return { type: 'string', minLength: 1, maxLength: 255 };
  }
}

/** The JSON Schema of entry.fields for these definitions: unknown keys, missing required ones and wrong types fail. */
export function fieldsSchema(definitions: FieldDefinition[]) {
  const properties: Record<string, unknown> = {};
  for (const d of definitions) {
    properties[d.key] = d.list
      ? { type: 'array', items: valueSchema(d), maxItems: 1000, ...(d.required ? { minItems: 1 } : {}) }
      : valueSchema(d);
  }
  return {
    type: 'object',
    additionalProperties: false,
    properties,
    required: definitions.filter((d) => d.required).map((d) => d.key),
  };
}

const validators = new Map<string, ValidateFunction>();

function validatorFor(definitions: FieldDefinition[]): ValidateFunction {
  const cacheKey = JSON.stringify(definitions);
  let validate = validators.get(cacheKey);
  if (!validate) {
    if (validators.size >= 500) validators.delete(validators.keys().next().value!);
    validate = compileSchema(fieldsSchema(definitions) as never).strict;
    validators.set(cacheKey, validate);
  }
  return validate;
}

const DATE_MESSAGE = 'must be an ISO 8601 date (YYYY-MM-DD) or date-time, from 1900 to 9999';

/** Schema errors of entry.fields, named from the input root: fields.price, fields.tags[1]. */
export function fieldErrors(definitions: FieldDefinition[], fields: Record<string, unknown>): FieldError[] {
  const validate = validatorFor(definitions);
  if (validate(fields)) return [];
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of toFieldErrors(validate.errors)) {
    const field = error.field === '(body)' ? 'fields' : `fields.${error.field}`;
    const message = /^must be a valid date(-time)? from /.test(error.message) ? DATE_MESSAGE : error.message;
    if (!seen.has(`${field}\u0000${message}`)) {
      seen.add(`${field}\u0000${message}`);
      out.push({ field, message });
    }
  }
  return out;
}

/** Null values mean "no value": they are dropped (on update, they remove the key). */
function idsOfType(definitions: FieldDefinition[], fields: Record<string, unknown>, type: FieldType) {
  const found: { field: string; id: string }[] = [];
  for (const d of definitions.filter((x) => x.type === type && fields[x.key] !== undefined)) {
    const value = fields[d.key];
    if (!Array.isArray(value)) found.push({ field: `fields.${d.key}`, id: String(value) });
    else
      for (const [i, id] of value.entries()) found.push({ field: `fields.${d.key}[${i}]`, id: String(id) });
  }
  return found;
}

/** reference fields must name entries, asset fields assets (not archived), of this workspace: two queries at most. */
export async function referenceErrors(
  db: Kysely<DB>,
  workspaceId: string,
  definitions: FieldDefinition[],
  fields: Record<string, unknown>,
): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  const references = idsOfType(definitions, fields, 'reference');
  if (references.length) {
    const known = await entryIdsIn(db, workspaceId, [...new Set(references.map((r) => r.id))]);
    for (const r of references)
      if (!known.has(r.id)) errors.push({ field: r.field, message: 'names no CMS entry of this workspace' });
  }
  const assets = idsOfType(definitions, fields, 'asset');
  if (assets.length) {
    const known = await liveAssetIdsIn(db, workspaceId, [...new Set(assets.map((a) => a.id))]);
    for (const a of assets)
      if (!known.has(a.id)) errors.push({ field: a.field, message: 'names no asset of this workspace' });
  }
  return errors;
}

/** The text that search_entries' query matches besides the title: text and rich_text values. */
export function searchText(definitions: FieldDefinition[], fields: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const d of definitions.filter((x) => x.type === 'text' || x.type === 'rich_text')) {
    const value = fields[d.key];
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) parts.push(...value.map(String));
  }
  return parts.join('\n');
}

export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 80)
    .replace(/-+$/, '');
  return slug || 'entry';
}
