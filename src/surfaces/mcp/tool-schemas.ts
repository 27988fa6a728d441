// The JSON Schemas a tool carries in tools/list, derived from the operation's declarations: the input whole
// (what the validator enforces, descriptions included), the output typed field by field. A listing is kept
// small by listing fewer tools (profiles, ?tools=), never by shortening these.
import type { TObject, TSchema } from '@sinclair/typebox';

type Schema = Record<string, unknown>;

/**
 * The inputSchema: the operation's strict schema exactly as declared. Every object carries
 * `additionalProperties: false` (a map its value schema) and a nullable field is `anyOf [T, {type: null}]`,
 * the form OpenAI's strict mode and the MCP Inspector's portability check both accept.
 */
export function toolInputSchema(input: TObject): Schema {
  return JSON.parse(JSON.stringify(input)) as Schema;
}

// Words for a reader, not constraints: /openapi.json keeps them.
const ANNOTATIONS = new Set(['description', 'examples', 'title']);

/** The schema without its annotations, at every depth (a property named "title" is a field, kept). */
export function withoutAnnotations(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withoutAnnotations);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Schema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(key)) continue;
    if (key === 'properties') {
      out[key] = Object.fromEntries(
        Object.entries(value as Schema).map(([name, field]) => [name, withoutAnnotations(field)]),
      );
    } else out[key] = key === 'enum' || key === 'const' ? value : withoutAnnotations(value);
  }
  return out;
}

/**
 * The outputSchema: the declared success body with every record's fields and their types (nullable,
 * enums, formats, required), without descriptions and examples; or an error result's structuredContent
 * ({error}). The spec exempts error results from the schema, but the official TypeScript SDK client (1.x)
 * validates them too, so the union keeps both conforming.
 */
export function toolOutputSchema(response: TSchema): Schema {
  return { type: 'object', anyOf: [withoutAnnotations(response), { required: ['error'] }] };
}
