import type { TObject, TSchema } from '@sinclair/typebox';
import type { Config } from '../../config.ts';
import type { OperationDefinition } from '../../core/define-operation.ts';
import { idempotencyScope } from '../../core/idempotency.ts';
import { MAX_PAGE_SIZE } from '../../core/pagination.ts';
import { ErrorEnvelope, successStatus } from '../../core/response-schema.ts';
import type { Registry, RestRoute } from '../../registry.ts';
import { type ExampleSources, exampleOf, requestExample, resourceFieldExamples } from './examples.ts';

type Json = Record<string, any>;

export const plain = (schema: TSchema): Json => JSON.parse(JSON.stringify(schema));

export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

export const errorResponse = { $ref: '#/components/responses/Error' };

/** The response every error status references: the shared envelope (also in /admin/openapi.json). */
export const errorResponseComponent = {
  description: 'An error; see /docs/api/errors for every code.',
  headers: { 'x-request-id': { schema: { type: 'string' }, description: 'Equals error.request_id.' } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
};

/**
 * Collects every titled schema (resources, the error envelope) as a component and replaces each occurrence
 * with a $ref, so a generated client gets one named type per resource.
 */
export class Components {
  readonly schemas: Record<string, Json> = {};

  ref(schema: Json): Json {
    const walk = (node: unknown): unknown => {
      if (Array.isArray(node)) return node.map(walk);
      if (!node || typeof node !== 'object') return node;
      const copy = Object.fromEntries(
        Object.entries(node).map(([k, v]) => [k, k === 'examples' ? v : walk(v)]),
      );
      const title = (node as Json).title;
      if (typeof title !== 'string') return copy;
      const existing = this.schemas[title];
      if (existing && JSON.stringify(existing) !== JSON.stringify(copy)) {
        throw new Error(`Two different schemas are titled ${title}`);
      }
      this.schemas[title] = copy;
      return { $ref: `#/components/schemas/${title}` };
    };
    return walk(schema) as Json;
  }
}

const idempotencyKeyHeader = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'The same as the body field idempotency_key: a retry with the same key and input returns the first result. Sent with a different idempotency_key in the body: 400 validation_failed.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: 'order-4711-create',
};

/** The REST query schema of a field: `limit` above the maximum is clamped, not rejected (MCP keeps 1..100). */
function querySchema(name: string, schema: Json): Json {
  if (name !== 'limit') return schema;
  const { maximum: _maximum, ...rest } = schema;
  return {
    ...rest,
    description: `Page size (default 25); values above ${MAX_PAGE_SIZE} are clamped to ${MAX_PAGE_SIZE}.`,
  };
}

function successResponses(
  op: OperationDefinition,
  response: TObject,
  components: Components,
  ids: ExampleSources,
) {
  const status = String(successStatus(op));
  const example = exampleOf(response, ids);
  const content = op.responseMediaType
    ? { [op.responseMediaType]: { schema: { type: 'string' } } }
    : { 'application/json': { schema: components.ref(plain(response)), example } };
  const headers = {
    'x-request-id': { schema: { type: 'string' }, description: "Equals the body's request_id." },
  };
  const responses: Json = {
    [status]: { description: 'Success; the body is the same as the MCP tool result.', headers, content },
  };
  if (op.kind === 'create' || op.starts) {
    responses['200'] = {
      description: op.starts
        ? 'Idempotent replay (same idempotency_key and input): the run the first call started, in its current state.'
        : 'Idempotent replay (same idempotency_key and input): the record the first call created, in its current state.',
      headers: { ...headers, 'idempotent-replayed': { schema: { type: 'string', enum: ['true'] } } },
      content,
    };
  }
  if (op.upsert) {
    responses['201'] = { description: 'Created: no record had this key yet.', headers, content };
    responses['200'] = { description: 'Updated: the existing record with this key.', headers, content };
  }
  return responses;
}

function operationObject(
  route: RestRoute,
  registry: Registry,
  components: Components,
  idOf: ExampleSources['ids'],
) {
  const op = route.operation;
  const response = registry.responses.get(op.name)!;
  const ids: ExampleSources = { ids: idOf, fields: resourceFieldExamples(plain(response)) };
  const input = plain(op.input) as { properties: Record<string, Json>; required?: string[] };
  const inPath = pathParams(route.path);
  const required = new Set(input.required ?? []);
  const parameters: Json[] = inPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: input.properties[name] ?? { type: 'string' },
    example: exampleOf(input.properties[name] ?? { type: 'string' }, ids, name),
  }));
  // Creates and run starts take their retry key as the Idempotency-Key header too (Stripe's clients do).
  if (idempotencyScope(op)) parameters.push(idempotencyKeyHeader);
  const bodyProperties = Object.fromEntries(
    Object.entries(input.properties).filter(([name]) => !inPath.includes(name)),
  );
  // A deprecated sharer that claims calls with a wider REST body (rest.input) adds its fields to the route.
  const claimants = route.shared.filter((d) => d.rest.when && d.rest.input);
  for (const claimant of claimants) {
    const extra = plain(claimant.rest.input!) as { properties: Record<string, Json> };
    for (const [name, schema] of Object.entries(extra.properties)) {
      if (!inPath.includes(name) && !(name in bodyProperties)) bodyProperties[name] = schema;
    }
  }
  const usesQuery = route.method === 'GET' || (route.method === 'DELETE' && !op.rest.body);
  if (usesQuery) {
    for (const [name, schema] of Object.entries(bodyProperties)) {
      const example = required.has(name) || name === 'limit' ? exampleOf(schema, ids, name) : undefined;
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        ...(schema.description ? { description: schema.description } : {}),
        schema: querySchema(name, schema),
        ...(example !== undefined ? { example } : {}),
      });
    }
  }
  const bodyRequired = [...required].filter((name) => !inPath.includes(name));
  const body: Json = { type: 'object', additionalProperties: false, properties: bodyProperties };
  if (bodyRequired.length) body.required = bodyRequired;
  // A PATCH changes something: every one refuses a body without a field to change.
  if (route.method === 'PATCH') body.minProperties = 1;
  const shared = route.shared.map((d) => d.name);
  const description = [
    op.description,
    shared.length ? `Deprecated tools sharing this route: ${shared.join(', ')}.` : '',
    ...claimants.map((d) => `${d.name}: ${d.rest.input!.description ?? 'serves some calls of this route.'}`),
    `Scopes: ${op.scopes.join(op.scopeMode === 'all' ? ' and ' : ' or ')}. MCP tool: ${op.mcp ? op.name : 'none (REST only)'}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    operationId: op.name,
    summary: op.summary,
    description,
    tags: [op.module],
    ...(op.deprecated ? { deprecated: true } : {}),
    security: [{ bearer: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(!usesQuery
      ? {
          requestBody: {
            required: bodyRequired.length > 0 || route.method === 'PATCH',
            content: { 'application/json': { schema: body, example: requestExample(op, body, ids) } },
          },
        }
      : {}),
    responses: {
      ...successResponses(op, response, components, ids),
      '400': errorResponse,
      '401': errorResponse,
      '402': errorResponse,
      '403': errorResponse,
      '404': errorResponse,
      ...(op.kind === 'create' ? { '409': errorResponse } : {}),
      '429': errorResponse,
      '500': errorResponse,
    },
  };
}

/** Example IDs by field name, from the record types' own ID examples (contact_id -> con_..., ticket_id too). */
export function exampleIds(registry: Registry): ExampleSources['ids'] {
  const byType = new Map<string, string>();
  for (const recordType of registry.recordTypes.values()) {
    const example = (recordType.schema.properties.id as Json | undefined)?.examples?.[0];
    if (typeof example === 'string') byType.set(recordType.type, example);
  }
  return (field) => {
    const type = field.replace(/_id$/, '');
    return byType.get(type) ?? [...byType].find(([name]) => name.endsWith(`_${type}`))?.[1];
  };
}

/** OpenAPI 3.1, generated from the registry: the same schemas tools/list publishes. */
export function buildOpenApi(registry: Registry, config: Config) {
  const components = new Components();
  const ids = exampleIds(registry);
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of registry.routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationObject(route, registry, components, ids);
  }
  components.ref(plain(ErrorEnvelope));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Operations Service',
      version: '1.0.0',
      description:
        'REST surface of wos. Every operation is also an MCP tool at /mcp with the same input schema and the same result body.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: config.publicUrl }],
    tags: [...new Set(registry.operations.map((op) => op.module))].map((name) => ({
      name,
      description: `Operations of the ${name.replace(/_/g, ' ')} module.`,
    })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A workspace API key (wos_sk_...).' },
      },
      schemas: components.schemas,
      responses: { Error: errorResponseComponent },
    },
  };
}
