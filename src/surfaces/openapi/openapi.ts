import type { TSchema } from '@sinclair/typebox';
import type { Config } from '../../config.ts';
import { errorCatalogue } from '../../core/errors.ts';
import type { Registry, RestRoute } from '../../registry.ts';

const plain = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema));

function pathParams(path: string): string[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
}

const errorResponse = { $ref: '#/components/responses/Error' };

function operationObject(route: RestRoute) {
  const op = route.operation;
  const input = plain(op.input) as {
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const inPath = pathParams(route.path);
  const required = new Set(input.required ?? []);
  const parameters: Record<string, unknown>[] = inPath.map((name) => ({
    name,
    in: 'path',
    required: true,
    schema: input.properties[name] ?? { type: 'string' },
  }));
  const bodyProperties = Object.fromEntries(
    Object.entries(input.properties).filter(([name]) => !inPath.includes(name)),
  );
  // A deprecated sharer that claims calls with a wider REST body (rest.input) adds its fields to the route.
  const claimants = route.shared.filter((d) => d.rest.when && d.rest.input);
  for (const claimant of claimants) {
    const extra = plain(claimant.rest.input!) as { properties: Record<string, Record<string, unknown>> };
    for (const [name, schema] of Object.entries(extra.properties)) {
      if (!inPath.includes(name) && !(name in bodyProperties)) bodyProperties[name] = schema;
    }
  }
  const usesQuery = route.method === 'GET' || route.method === 'DELETE';
  if (usesQuery) {
    for (const [name, schema] of Object.entries(bodyProperties)) {
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        description: schema.description,
        schema,
      });
    }
  }
  const shared = route.shared.map((d) => d.name);
  const description = [
    op.description,
    shared.length ? `Deprecated tools sharing this route: ${shared.join(', ')}.` : '',
    ...claimants.map((d) => `${d.name}: ${d.rest.input!.description ?? 'serves some calls of this route.'}`),
    `Scopes: ${op.scopes.join(op.scopeMode === 'all' ? ' and ' : ' or ')}. MCP tool: ${op.mcp ? op.name : 'none (REST only)'}.`,
  ]
    .filter(Boolean)
    .join('\n\n');
  const success = op.kind === 'create' ? '201' : '200';
  return {
    operationId: op.name,
    summary: op.summary,
    description,
    tags: [op.module],
    deprecated: Boolean(op.deprecated) || undefined,
    security: [{ bearer: [] }],
    parameters,
    ...(!usesQuery
      ? {
          requestBody: {
            required: [...required].some((name) => !inPath.includes(name)),
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  properties: bodyProperties,
                  required: [...required].filter((name) => !inPath.includes(name)),
                },
              },
            },
          },
        }
      : {}),
    responses: {
      [success]: {
        description: 'Success; the body is the same as the MCP tool result.',
        headers: { 'x-request-id': { schema: { type: 'string' } } },
        content: op.responseMediaType
          ? { [op.responseMediaType]: { schema: { type: 'string' } } }
          : {
              'application/json': {
                schema: {
                  type: 'object',
                  required: [op.responseKey, 'request_id'],
                  properties: {
                    [op.responseKey]: {},
                    request_id: { type: 'string' },
                    ...(op.input.properties.cursor ? { next_cursor: { type: 'string' } } : {}),
                  },
                },
              },
            },
      },
      ...(op.kind === 'create'
        ? { '200': { description: 'Idempotent replay: the record created by the first attempt.' } }
        : {}),
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

/** OpenAPI 3.1, generated from the registry: the same schemas tools/list publishes. */
export function buildOpenApi(registry: Registry, config: Config) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of registry.routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationObject(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Operations Service',
      version: '1.0.0',
      description:
        'REST surface of wos. Every operation is also an MCP tool at /mcp with the same input schema and the same result body.',
    },
    servers: [{ url: config.publicUrl }],
    tags: [...new Set(registry.operations.map((op) => op.module))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'A workspace API key (wos_sk_...).' },
      },
      schemas: {
        ErrorEnvelope: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'request_id', 'docs_url'],
              properties: {
                code: { type: 'string', enum: Object.keys(errorCatalogue) },
                message: { type: 'string' },
                request_id: { type: 'string' },
                docs_url: { type: 'string', format: 'uri' },
                field_errors: {
                  type: 'array',
                  items: {
                    type: 'object',
                    properties: { field: { type: 'string' }, message: { type: 'string' } },
                    required: ['field', 'message'],
                  },
                },
                required_scope: { type: 'string' },
                retry_after_seconds: { type: 'integer' },
                idempotency_key: { type: 'string' },
              },
            },
          },
        },
      },
      responses: {
        Error: {
          description: 'An error; see /docs/api/errors for every code.',
          headers: { 'x-request-id': { schema: { type: 'string' } } },
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
      },
    },
  };
}
