import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { BrowserAccess } from '../../core/auth.ts';
import type { PipelineDeps } from '../../core/call.ts';
import { fail } from '../../core/errors.ts';
import { RefusedBody } from '../../core/json-body.ts';
import { MAX_PAGE_SIZE } from '../../core/pagination.ts';
import { runOperation } from '../../core/run-operation.ts';
import { bearerToken } from '../../core/tokens.ts';
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
    if (typeof body !== 'object' || body === null || Array.isArray(body) || body instanceof RefusedBody) {
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

/** The public key a browser route was called with: ?<queryParam>= or a Bearer token with the key prefix. */
function publicKeyOf(access: BrowserAccess, request: FastifyRequest): string | undefined {
  const query = (request.query as Record<string, unknown>)[access.queryParam];
  if (typeof query === 'string' && query !== '') return query;
  const bearer = bearerToken(request.headers.authorization);
  return bearer?.startsWith(access.keyPrefix) ? bearer : undefined;
}

const CORS_HEADERS = {
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization, x-wos-workspace-id, x-service-workspace-id',
  'access-control-max-age': '600',
};

/** The CORS grant of a browser route: the Origin echoed when the key allows it, else nothing. */
async function corsGrant(
  deps: PipelineDeps,
  access: BrowserAccess,
  key: string | undefined,
  origin: string | undefined,
): Promise<Record<string, string>> {
  if (!key || !origin || !(await access.allowsOrigin(deps.database.db, key, origin, deps.clock.now())))
    return {};
  return grantOf(origin);
}

function grantOf(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    vary: 'Origin',
    // The SDK backs off by Retry-After on a 429.
    'access-control-expose-headers': 'retry-after, x-request-id',
  };
}

/** Failures of the authentication stage: the key may not allow the origin, so the grant is looked up. */
const AUTH_ERRORS: ReadonlySet<string> = new Set([
  'authentication_required',
  'workspace_not_found',
  'credential_not_allowed',
  'origin_not_allowed',
  'rate_limited',
]);

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

export function registerRestRoutes(app: FastifyInstance, deps: PipelineDeps): void {
  for (const route of deps.registry.routes) {
    const label = `${route.method} ${route.path}`;
    const access = route.operation.rest.browser;
    if (access) {
      // The preflight: granted to the origins the key allows, refused (403, no CORS headers) otherwise.
      app.options(toFastifyPath(route.path), async (request, reply) => {
        const grant = await corsGrant(deps, access, publicKeyOf(access, request), header(request, 'origin'));
        if (!grant['access-control-allow-origin']) {
          return sendError(reply, fail('origin_not_allowed'), deps.config.publicUrl);
        }
        return reply
          .code(204)
          .headers({ ...grant, ...CORS_HEADERS })
          .send();
      });
    }
    app.route({
      method: route.method,
      url: toFastifyPath(route.path),
      // A browser route's JSON may arrive as text/plain (sendBeacon); app.ts parses it only for these.
      config: { textPlainJson: access !== undefined },
      handler: async (request, reply) => {
        const { input, coerce } = restInput(route, request);
        const operation = dispatch(route, input);
        const origin = header(request, 'origin');
        const key = access && publicKeyOf(access, request);
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
          ...(key && access ? { publicKey: { key, origin, access } } : {}),
          idempotencyHeader: header(request, 'idempotency-key'),
          workspaceHeader: header(request, 'x-wos-workspace-id') ?? header(request, 'x-service-workspace-id'),
          userAgent: header(request, 'user-agent'),
        });
        reply.headers(outcome.headers);
        if (access && origin) {
          // A call that passed authentication came from an origin its key allows; only a refused one asks.
          const refused = !outcome.ok && AUTH_ERRORS.has(outcome.error.code);
          if (key && !refused) reply.headers(grantOf(origin));
          else reply.headers(await corsGrant(deps, access, key, origin));
        }
        if (!outcome.ok) return sendError(reply, outcome.error, deps.config.publicUrl);
        if (outcome.raw)
          return reply.code(outcome.status).type(outcome.raw.contentType).send(outcome.raw.payload);
        return reply.code(outcome.status).send(outcome.body);
      },
    });
  }
}
