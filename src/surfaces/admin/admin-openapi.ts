// /admin/openapi.json: the operator API's own OpenAPI 3.1 document, generated from its declarations
// (admin-api.ts) with the pieces the main document uses (components, error envelope, examples).
import type { Config } from '../../config.ts';
import { exampleId } from '../../core/resource-schema.ts';
import { ErrorEnvelope } from '../../core/response-schema.ts';
import { type ExampleSources, exampleOf } from '../openapi/examples.ts';
import { Components, errorResponse, errorResponseComponent, pathParams, plain } from '../openapi/openapi.ts';
import { ADMIN_PREFIX, type AdminRoute, adminResponseSchema, adminRoutes } from './admin-api.ts';

type Json = Record<string, any>;

// Example IDs of the operator API's path parameters and ID fields.
const idPrefixes: Record<string, string> = {
  workspace_id: 'ws',
  credential_id: 'key',
  note_id: 'note',
  request_id: 'req',
};
const sources: ExampleSources = {
  ids: (field) => (idPrefixes[field] ? exampleId(idPrefixes[field]) : undefined),
};

function operationObject(route: AdminRoute, components: Components): Json {
  const response = plain(adminResponseSchema(route));
  const requestBody = route.body && plain(route.body);
  return {
    operationId: route.name,
    summary: route.summary,
    description: route.description,
    tags: [route.tag],
    security: [{ operatorToken: [] }],
    ...(pathParams(route.path).length
      ? {
          parameters: pathParams(route.path).map((name) => ({
            name,
            in: 'path',
            required: true,
            schema: { type: 'string', minLength: 1 },
            example: exampleOf({ type: 'string' }, sources, name),
          })),
        }
      : {}),
    ...(requestBody
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': { schema: requestBody, example: exampleOf(requestBody, sources, '', true) },
            },
          },
        }
      : {}),
    responses: {
      [String(route.status)]: {
        description: route.status === 201 ? 'Created.' : 'Success.',
        headers: {
          'x-request-id': { schema: { type: 'string' }, description: "Equals the body's request_id." },
        },
        content: {
          'application/json': { schema: components.ref(response), example: exampleOf(response, sources) },
        },
      },
      ...(requestBody ? { '400': errorResponse } : {}),
      '401': errorResponse,
      ...(pathParams(route.path).length ? { '404': errorResponse } : {}),
      '429': errorResponse,
      '500': errorResponse,
    },
  };
}

export function buildAdminOpenApi(config: Config) {
  const components = new Components();
  const paths: Record<string, Json> = {};
  for (const route of adminRoutes) {
    const path = `${ADMIN_PREFIX}${route.path}`;
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operationObject(route, components);
  }
  components.ref(plain(ErrorEnvelope));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workspace Operations Service: operator API',
      version: '1.0.0',
      description:
        'Installation-wide administration (workspaces, credentials, request lookups, outbox failures) with the ' +
        'operator token. ' +
        'The workspace API is described at /openapi.json.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: config.publicUrl }],
    tags: [
      {
        name: 'workspaces',
        description: 'Tenants: modules, MCP policy, rate limit, billing, entitlements, note restores.',
      },
      { name: 'credentials', description: 'API keys and MCP tokens of a workspace.' },
      { name: 'requests', description: 'What was recorded for a request ID.' },
      { name: 'outbox', description: 'Events an event consumer failed on, retried or given up.' },
    ],
    paths,
    components: {
      securitySchemes: {
        operatorToken: { type: 'http', scheme: 'bearer', description: 'The operator token (wos_op_...).' },
      },
      schemas: components.schemas,
      responses: { Error: errorResponseComponent },
    },
  };
}
