import type { FastifyReply } from 'fastify';
import { type ServiceError, toEnvelope } from '../core/errors.ts';

/** The REST (and operator API) error mapper: HTTP status, headers, and the spec's envelope. */
export function sendError(reply: FastifyReply, error: ServiceError, publicUrl: string): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', 'Bearer');
  if (error.allow) reply.header('allow', error.allow.join(', '));
  if (error.extras.retry_after_seconds !== undefined) reply.header('retry-after', String(error.extras.retry_after_seconds));
  return reply.code(error.status).send(toEnvelope(error, reply.request.id, publicUrl));
}
