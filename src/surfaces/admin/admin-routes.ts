// The operator API's Fastify routes, generated from its declarations (admin-api.ts), with the operator token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyOperator } from '../../admin/bootstrap.ts';
import type { OperatorCall } from '../../admin/workspace-admin.ts';
import type { PipelineDeps } from '../../core/call.ts';
import type { Clock } from '../../core/clock.ts';
import { asServiceError, validationFailed } from '../../core/errors.ts';
import { RefusedBody } from '../../core/json-body.ts';
import { checkResponse } from '../../core/response-schema.ts';
import { assertNoNul, compileSchema, toFieldErrors } from '../../core/schema.ts';
import { sendError } from '../http-errors.ts';
import { toFastifyPath } from '../rest/rest-routes.ts';
import { ADMIN_PREFIX, adminResponseSchema, adminRoutes } from './admin-api.ts';
import { buildAdminOpenApi } from './admin-openapi.ts';

/**
 * The validated JSON body. A single problem is also spelled out in the message, so an operator reading
 * only `.error.message` sees it (for a mistyped scope: every valid scope).
 */
function bodyOf(validate: ReturnType<typeof compileSchema>['strict'], request: FastifyRequest) {
  if (request.body instanceof RefusedBody)
    throw validationFailed(request.body.fieldErrors, request.body.message);
  const value = request.body ?? {};
  assertNoNul(value);
  if (validate(value)) return value;
  const errors = toFieldErrors(validate.errors);
  const only = errors.length === 1 ? errors[0] : undefined;
  throw validationFailed(
    errors,
    only ? `The input failed validation: ${only.field} ${only.message}.` : undefined,
  );
}

export function registerAdminRoutes(app: FastifyInstance, deps: PipelineDeps & { clock: Clock }): void {
  const db = deps.database.db;
  // Public like /openapi.json: it describes the API, it holds nothing of an installation.
  const document = buildAdminOpenApi(deps.config);
  app.get('/admin/openapi.json', async () => document);
  for (const route of adminRoutes) {
    const validate = route.body ? compileSchema(route.body).strict : undefined;
    const response = adminResponseSchema(route);
    app.route({
      method: route.method,
      url: `${ADMIN_PREFIX}${toFastifyPath(route.path)}`,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        try {
          const { authorization } = request.headers;
          await deps.authThrottle.guard(request.ip, authorization, () => verifyOperator(db, authorization));
          const operator: OperatorCall = {
            db,
            clock: deps.clock,
            requestId: request.id,
            surface: 'admin',
            defaultRateLimitPerMinute: deps.config.defaultRateLimitPerMinute,
          };
          const params = request.params as Record<string, string>;
          for (const [name, value] of Object.entries(params)) assertNoNul(value, name);
          const body = validate ? bodyOf(validate, request) : undefined;
          const result = await route.handler({
            operator,
            params,
            body,
            flushUsage: () => deps.usage.flush(),
          });
          const sent = { ...result, request_id: request.id };
          if (deps.config.validateResponses) checkResponse({ name: `admin ${route.name}` }, response, sent);
          return reply.code(route.status).send(sent);
        } catch (thrown) {
          const error = asServiceError(thrown);
          if (error.code === 'internal_error')
            deps.logger.error({ err: thrown, request_id: request.id }, 'admin call failed');
          return sendError(reply, error, deps.config.publicUrl);
        }
      },
    });
  }
}
