import type { FastifyInstance, FastifyRequest } from 'fastify';
import { MAX_PAGE_SIZE } from '../../core/pagination.ts';
import { type PipelineDeps, runOperation } from '../../core/run-operation.ts';
import type { RestRoute } from '../../registry.ts';
import { sendError } from '../http-errors.ts';

/** Fastify path syntax for an OpenAPI-style path: /v1/tasks/{task_id} -> /v1/tasks/:task_id. */
export function toFastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/**
 * Builds the tool input of a REST call: path parameters plus the query string (GET, DELETE) or the JSON
 * body. Path parameters win over same-named body fields. Only query strings are coerced to the schema's
 * types, and a limit above the cap is clamped here, as the REST contract promises.
 */
function restInput(route: RestRoute, request: FastifyRequest): { input: unknown; coerce: boolean } {
  const params = request.params as Record<string, string>;
  const usesQuery = route.method === 'GET' || route.method === 'DELETE';
  if (!usesQuery || request.body !== undefined) {
    const body = request.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return { input: body === undefined ? { ...params } : body, coerce: false };
    }
    return { input: { ...body, ...params }, coerce: false };
  }
  const query = { ...(request.query as Record<string, unknown>) };
  if (
    'limit' in route.operation.input.properties &&
    typeof query.limit === 'string' &&
    /^\d+$/.test(query.limit)
  ) {
    if (Number(query.limit) > MAX_PAGE_SIZE) query.limit = String(MAX_PAGE_SIZE);
  }
  return { input: { ...query, ...params }, coerce: true };
}

/** The operation serving a call: the route's owner, unless a deprecated sharer claims this input. */
function dispatch(route: RestRoute, input: unknown) {
  if (typeof input !== 'object' || input === null) return route.operation;
  const claimant = route.shared.find((op) => op.rest.when?.(input as Record<string, unknown>));
  return claimant ?? route.operation;
}

export function registerRestRoutes(app: FastifyInstance, deps: PipelineDeps): void {
  for (const route of deps.registry.routes) {
    const label = `${route.method} ${route.path}`;
    app.route({
      method: route.method,
      url: toFastifyPath(route.path),
      handler: async (request, reply) => {
        const { input, coerce } = restInput(route, request);
        const operation = dispatch(route, input);
        const outcome = await runOperation(deps, {
          surface: 'rest',
          requestId: request.id,
          route: label,
          method: route.method,
          toolName: operation.name,
          operation,
          input,
          coerce,
          authorization: request.headers.authorization,
          clientAddress: request.ip,
        });
        reply.headers(outcome.headers);
        if (!outcome.ok) return sendError(reply, outcome.error, deps.config.publicUrl);
        if (outcome.raw)
          return reply.code(outcome.status).type(outcome.raw.contentType).send(outcome.raw.payload);
        return reply.code(outcome.status).send(outcome.body);
      },
    });
  }
}
