import { METHODS, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { fail, type ServiceError, toEnvelope, validationFailed } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { JSONRPC, rpcError } from './mcp/json-rpc.ts';

const MCP_URL = /^\/mcp\/?(?:[?#]|$)/;

/**
 * The body of an error: the envelope, or on /mcp a JSON-RPC error (id null: the message was not read)
 * whose data is the envelope, so an MCP client gets JSON-RPC whatever failed.
 */
export function errorBody(
  url: string | undefined,
  error: ServiceError,
  requestId: string,
  publicUrl: string,
) {
  const envelope = toEnvelope(error, requestId, publicUrl);
  if (url === undefined || !MCP_URL.test(url)) return envelope;
  const code = error.status >= 500 ? JSONRPC.internalError : JSONRPC.serverError;
  return rpcError(null, code, error.message, envelope);
}

/** The REST (and operator API) error mapper: HTTP status, headers, and the spec's envelope. */
export function sendError(reply: FastifyReply, error: ServiceError, publicUrl: string): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', 'Bearer');
  if (error.allow) reply.header('allow', error.allow.join(', '));
  if (error.extras.retry_after_seconds !== undefined)
    reply.header('retry-after', String(error.extras.retry_after_seconds));
  // Set here too: framework errors (a malformed URL) are answered outside the routes' onSend hooks.
  reply.header('x-request-id', reply.request.id);
  return reply.code(error.status).send(errorBody(reply.request.url, error, reply.request.id, publicUrl));
}

/** The error of a request Node's HTTP parser refused (or timed out) before Fastify saw it whole. */
function clientErrorOf(code: string | undefined): ServiceError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return fail('request_header_fields_too_large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return fail('request_timeout');
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return validationFailed(
        [
          {
            field: '(request)',
            message: 'Transfer-Encoding must be chunked alone: no other transfer coding is supported',
          },
        ],
        'The request uses a transfer coding this service does not support.',
      );
    case 'HPE_INVALID_EOF_STATE':
      return validationFailed(
        [{ field: '(request)', message: 'the body ended before the length its Content-Length announced' }],
        'The request body is shorter than its Content-Length.',
      );
    default:
      return validationFailed(
        [
          {
            field: '(request)',
            message: `is not valid HTTP/1.1 (${code ?? 'unknown'}); a body longer than its Content-Length reads as a malformed next request`,
          },
        ],
        'The request is not valid HTTP.',
      );
  }
}

/** The path of the request line read so far, when the parser failed while reading the head. */
function requestLinePath(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  return raw
    .subarray(0, 512)
    .toString('latin1')
    .match(/^[A-Z]+ (\S+)/)?.[1];
}

/**
 * The path of a request whose own request line names a method Node's parser does not know (FOO). The
 * packet may begin with an earlier, valid request (a body longer than its Content-Length): that is not it.
 */
function unknownMethodPath(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = raw
    .subarray(0, 512)
    .toString('latin1')
    .match(/^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/1\.[01]\r?\n/);
  return line && !METHODS.includes(line[1]!) ? line[2] : undefined;
}

/**
 * Fastify's clientErrorHandler: errors Node raises on the socket itself (a head over the size limit, a
 * timeout, malformed HTTP) are answered with the envelope and an x-request-id, then the connection closes,
 * as Node's own handler does.
 */
export function clientErrorHandler(
  publicUrl: string,
  logger: Logger,
  unrouted: (url: string) => ServiceError,
) {
  return (err: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    // A method Node's parser does not know (FOO) is a method no route serves: 405 with Allow (or 404), as for QUERY.
    const methodPath = err.code === 'HPE_INVALID_METHOD' ? unknownMethodPath(err.rawPacket) : undefined;
    const error = methodPath ? unrouted(methodPath) : clientErrorOf(err.code);
    const requestId = newId('req');
    logger.info({ request_id: requestId, code: err.code, status: error.status }, 'client error');
    // The response of the request in flight (its head was read: a timeout mid-body), unless it started already.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean; req?: { url?: string } } })
      ._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const url = inFlight?.req?.url ?? requestLinePath(err.rawPacket);
      const body = JSON.stringify(errorBody(url, error, requestId, publicUrl));
      socket.write(
        `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}\r\n` +
          'content-type: application/json; charset=utf-8\r\n' +
          `content-length: ${Buffer.byteLength(body)}\r\n` +
          `x-request-id: ${requestId}\r\n` +
          (error.allow ? `allow: ${error.allow.join(', ')}\r\n` : '') +
          'connection: close\r\n\r\n' +
          body,
      );
    }
    socket.destroy(err);
  };
}
