// The JSON Schemas a tool carries in tools/list. Every tool's schemas are in every listing, so they say
// what a client needs in as few bytes as they can; OpenAPI keeps the full, annotated forms.
import type { TObject, TSchema } from '@sinclair/typebox';

type Schema = Record<string, unknown>;

/**
 * `anyOf [S, {type: "null"}]` as S with "null" added to its type (and to its enum or const): the same
 * values in fewer bytes.
 */
function mergeNull(schema: Schema): Schema {
  const branches = schema.anyOf as Schema[] | undefined;
  if (branches?.length !== 2) return schema;
  const [first, second] = branches as [Schema, Schema];
  if (second.type !== 'null' || Object.keys(second).length !== 1 || typeof first.type !== 'string') {
    return schema;
  }
  const { anyOf: _anyOf, ...rest } = schema;
  const merged: Schema = { ...rest, ...first, type: [first.type, 'null'] };
  if (Array.isArray(first.enum)) merged.enum = [...first.enum, null];
  if ('const' in first) {
    merged.enum = [first.const, null];
    delete merged.const;
  }
  return merged;
}

function mapSchema(schema: unknown, visit: (schema: Schema) => Schema): unknown {
  if (Array.isArray(schema)) return schema.map((item) => mapSchema(item, visit));
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    // Keys under properties are field names, not keywords (a record may have a field named "title").
    out[key] =
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Schema).map(([name, f]) => [name, mapSchema(f, visit)]))
        : mapSchema(value, visit);
  }
  return visit(out);
}

// Fields every write or list has; the server's instructions (initialize) explain them once.
const CONVENTION_FIELDS = ['idempotency_key', 'cursor', 'limit'];

/** A description that only lists the enum's values ("report, metric or insight_view.") says nothing more. */
function namesOnlyEnum(schema: Schema): boolean {
  if (typeof schema.description !== 'string' || !Array.isArray(schema.enum)) return false;
  const values = new Set(schema.enum.map(String));
  const words = schema.description.split(/[\s,.;]+/).filter((w) => w && w !== 'or' && w !== 'and');
  return words.length > 0 && words.every((word) => values.has(word));
}

/**
 * Every input object is closed (the contract test holds operations to it) and the instructions say so
 * once, so `additionalProperties: false` is left out; a typed map keeps its `additionalProperties` schema.
 */
function compactInput(schema: Schema): Schema {
  const out = mergeNull(schema);
  if (out.additionalProperties === false) delete out.additionalProperties;
  if (namesOnlyEnum(out)) delete out.description;
  return out;
}

/**
 * The inputSchema: the operation's strict schema, nullable fields written the short way, closed objects
 * unmarked, and the fields of the conventions without their descriptions.
 */
export function toolInputSchema(input: TObject): Schema {
  const schema = mapSchema(JSON.parse(JSON.stringify(input)), compactInput) as Schema;
  const properties = schema.properties as Record<string, Schema>;
  for (const name of CONVENTION_FIELDS) delete properties[name]?.description;
  return schema;
}

/**
 * The outline of a body: its keys with their types and which are required, and the same for each record
 * in it; a record's own fields are typed, not described further (formats, enums, nested shapes are in
 * OpenAPI). Arrays take their items at the same depth.
 */
function outline(schema: Schema, depth: number): Schema {
  const out: Schema = {};
  if (schema.type !== undefined) out.type = schema.type;
  if (Array.isArray(schema.anyOf)) {
    // Branches that outline alike (several record shapes, each an object) are said once.
    const branches = (schema.anyOf as Schema[]).map((s) => outline(s, depth));
    const distinct = [...new Map(branches.map((b) => [JSON.stringify(b), b])).values()];
    if (distinct.length === 1 && out.type === undefined) return distinct[0]!;
    out.anyOf = distinct;
  }
  if (depth === 0) return out;
  if (schema.items) out.items = outline(schema.items as Schema, depth);
  if (schema.properties) {
    out.properties = Object.fromEntries(
      Object.entries(schema.properties as Record<string, Schema>).map(([name, field]) => [
        name,
        outline(field, depth - 1),
      ]),
    );
    if (Array.isArray(schema.required) && schema.required.length) out.required = schema.required;
  }
  return out;
}

/**
 * The outputSchema: the outline of the success body, or an error result's structuredContent ({error}).
 * The spec exempts error results from the schema, but the official TypeScript SDK client (1.x) validates
 * them too, so the union keeps both conforming.
 */
export function toolOutputSchema(response: TSchema): Schema {
  const body = mapSchema(JSON.parse(JSON.stringify(response)), mergeNull) as Schema;
  const { type: _object, ...success } = outline(body, 1);
  return { type: 'object', anyOf: [success, { required: ['error'] }] };
}
