// MCP over Streamable HTTP, JSON responses: POST /mcp takes one JSON-RPC 2.0 message. Sessions are optional
// (initialize issues an Mcp-Session-Id; a client sending it back keeps the profiles enable_toolset added).
// Authentication happens before any method; tools/call goes through the same pipeline as REST.
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, type Principal } from '../../core/auth.ts';
import type { PipelineDeps } from '../../core/call.ts';
import { asServiceError, fail, type ServiceError, toEnvelope, validationFailed } from '../../core/errors.ts';
import { MALFORMED_JSON, MCP_ENVELOPE_LEVELS, RefusedBody } from '../../core/json-body.ts';
import { parseOrigin } from '../../core/origins.ts';
import { runOperation } from '../../core/run-operation.ts';
import { MAX_NESTING, nulFieldErrors } from '../../core/schema.ts';
import { sendError } from '../http-errors.ts';
import { eventStream, JSONRPC, type JsonRpcId, rpcError } from './json-rpc.ts';
import {
  createSession,
  endSession,
  type McpSession,
  requireSession,
  SESSION_HEADER,
} from './mcp-sessions.ts';
import { visibleTools } from './mcp-tools.ts';
import { type Selection, selectedTools, selectionOf } from './tool-selection.ts';

const TOOLS_PAGE_SIZE = 100;
const SERVER_INFO = { name: 'wos', title: 'Workspace Operations Service', version: '0.1.0' };
const INSTRUCTIONS =
  'Business records and analytics of one workspace. Call get_workspace_summary to orient yourself. ' +
  'Conventions every tool follows: each write is audited (get_record_history reads the trail) and emits ' +
  'the domain events its description names; send an idempotency_key on every write you may retry (the ' +
  'same key and input return the first result; no personal data in keys); updates set the end state you ' +
  'send, so repeating one is safe; lists take limit (1 to 100, default 25) and, when more results exist, ' +
  'return next_cursor: pass it back as cursor with the same filters. ' +
  'Errors come back as isError results whose structuredContent.error has code, message and request_id. ' +
  'Each tool outputSchema types its result. This connection may list only some tools (/mcp?profile=, ' +
  '?modules=, ?tools=): find_tools finds any tool by task and names the profile listing it; in an MCP ' +
  'session, enable_toolset adds a profile to the listing.';

/** A loopback origin exactly as browsers send it (a path, user info or padded port is not one). */
function isLoopbackOrigin(header: string): boolean {
  const hostname = parseOrigin(header)?.hostname;
  return (
    hostname === 'localhost' ||
    hostname === '127.0.0.1' ||
    hostname === '[::1]' ||
    hostname?.endsWith('.localhost') === true
  );
}

function toolResult(body: Record<string, unknown>, isError: boolean) {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body,
    ...(isError ? { isError: true } : {}),
  };
}

function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

export function registerMcpEndpoint(app: FastifyInstance, deps: PipelineDeps): void {
  const db = deps.database.db;
  const envelope = (error: ServiceError, request: FastifyRequest) =>
    toEnvelope(error, request.id, deps.config.publicUrl);
  const ownerOf = (principal: Principal) => ({
    workspaceId: principal.workspace.id,
    credentialId: principal.credential.id,
  });
  /** The names a listing holds for these session profiles. */
  const listedNames = (principal: Principal, selection: Selection | undefined, profiles: readonly string[]) =>
    visibleTools(deps.registry, principal, selectedTools(deps.registry, selection, profiles))
      .map((tool) => tool.name)
      .join(',');

  const originAllowed = (origin: string | undefined) =>
    origin === undefined ||
    (deps.config.mcpAllowedOrigins.length
      ? deps.config.mcpAllowedOrigins.includes(origin)
      : isLoopbackOrigin(origin));

  // The message may nest MCP_ENVELOPE_LEVELS deeper than a REST body: a tool's arguments get the same limit.
  const config = { bodyNesting: MAX_NESTING + MCP_ENVELOPE_LEVELS };
  app.post('/mcp', { config }, async (request, reply) => {
    const body = request.body as unknown;
    const message =
      typeof body === 'object' && body !== null && !Array.isArray(body) && !(body instanceof RefusedBody)
        ? (body as Record<string, unknown>)
        : undefined;
    const id: JsonRpcId =
      message && (typeof message.id === 'string' || typeof message.id === 'number') ? message.id : null;

    const failHttp = (error: ServiceError) => {
      if (error.status === 401) reply.header('www-authenticate', 'Bearer');
      if (error.extras.retry_after_seconds !== undefined)
        reply.header('retry-after', String(error.extras.retry_after_seconds));
      return reply
        .code(error.status)
        .send(rpcError(id, JSONRPC.serverError, error.message, envelope(error, request)));
    };

    if (!originAllowed(request.headers.origin)) return failHttp(fail('origin_not_allowed'));

    let principal: Principal;
    try {
      const { authorization } = request.headers;
      principal = await deps.authThrottle.guard(request.ip, authorization, () =>
        authenticate(deps.database.db, authorization, 'mcp', deps.principals),
      );
    } catch (thrown) {
      return failHttp(thrown as ServiceError);
    }

    let selection: Selection | undefined;
    try {
      selection = selectionOf(request.query as Record<string, unknown>, deps.registry);
    } catch (thrown) {
      const error = thrown as ServiceError;
      return reply
        .code(400)
        .send(rpcError(id, JSONRPC.invalidRequest, error.message, envelope(error, request)));
    }

    if (body === MALFORMED_JSON) {
      const error = validationFailed([{ field: '(body)', message: 'is not valid JSON' }]);
      return reply
        .code(400)
        .send(rpcError(null, JSONRPC.parseError, 'Parse error', envelope(error, request)));
    }
    if (body instanceof RefusedBody) {
      const error = validationFailed(body.fieldErrors, body.message);
      return reply
        .code(400)
        .send(rpcError(null, JSONRPC.invalidRequest, 'Invalid Request', envelope(error, request)));
    }
    if (message?.jsonrpc !== '2.0' || (message.method !== undefined && typeof message.method !== 'string')) {
      const error = validationFailed([{ field: '(body)', message: 'must be one JSON-RPC 2.0 message' }]);
      return reply
        .code(400)
        .send(rpcError(id, JSONRPC.invalidRequest, 'Invalid Request', envelope(error, request)));
    }
    if ('id' in message && typeof message.id !== 'string' && typeof message.id !== 'number') {
      const error = validationFailed([{ field: 'id', message: 'must be a string or a number' }]);
      return reply
        .code(400)
        .send(rpcError(null, JSONRPC.invalidRequest, 'Invalid Request', envelope(error, request)));
    }
    // Notifications (no id) and responses from the client need no answer.
    if (message.method === undefined || !('id' in message)) return reply.code(202).send();

    // initialize starts a session; any other request naming one must name a live one of this credential.
    const sessionId = headerOf(request, SESSION_HEADER);
    let session: McpSession | undefined;
    if (sessionId !== undefined && message.method !== 'initialize') {
      try {
        session = await requireSession(db, ownerOf(principal), sessionId, deps.clock.now());
      } catch (thrown) {
        return failHttp(asServiceError(thrown));
      }
    }
    return handleRequest(request, reply, message, id ?? null, principal, selection, session);
  });

  async function handleRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    message: Record<string, unknown>,
    id: JsonRpcId,
    principal: Principal,
    selection: Selection | undefined,
    session: McpSession | undefined,
  ) {
    const params = (
      typeof message.params === 'object' && message.params !== null ? message.params : {}
    ) as Record<string, unknown>;
    const result = (value: unknown) => reply.send({ jsonrpc: '2.0', id, result: value });

    switch (message.method) {
      case 'initialize': {
        const requested = String(params.protocolVersion ?? '');
        const started = await createSession(db, ownerOf(principal), deps.clock.now());
        reply.header(SESSION_HEADER, started.id);
        return result({
          protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested)
            ? requested
            : LATEST_PROTOCOL_VERSION,
          // enable_toolset changes a session's listing and says so (notifications/tools/list_changed).
          capabilities: { tools: { listChanged: true } },
          serverInfo: SERVER_INFO,
          instructions: INSTRUCTIONS,
        });
      }
      case 'ping':
        return result({});
      case 'tools/list': {
        const tools = visibleTools(
          deps.registry,
          principal,
          selectedTools(deps.registry, selection, session?.profiles),
        );
        let start = 0;
        if (params.cursor !== undefined) {
          start = Number.parseInt(Buffer.from(String(params.cursor), 'base64url').toString('utf8'), 10);
          if (!Number.isInteger(start) || start < 0 || start >= tools.length) {
            const error = validationFailed([
              { field: 'cursor', message: 'is not a cursor tools/list issued' },
            ]);
            return reply.send(
              rpcError(id, JSONRPC.invalidParams, 'Invalid cursor', envelope(error, request)),
            );
          }
        }
        const page = tools.slice(start, start + TOOLS_PAGE_SIZE);
        const next =
          start + TOOLS_PAGE_SIZE < tools.length
            ? Buffer.from(String(start + TOOLS_PAGE_SIZE)).toString('base64url')
            : undefined;
        return result(next ? { tools: page, nextCursor: next } : { tools: page });
      }
      case 'tools/call': {
        const name = typeof params.name === 'string' ? params.name : '';
        // The name is recorded with the call: NUL, which PostgreSQL text refuses, cannot reach it.
        const nul = nulFieldErrors(name, 'name');
        if (nul.length) {
          const error = validationFailed(nul);
          return reply.send(rpcError(id, JSONRPC.invalidParams, 'Invalid params', envelope(error, request)));
        }
        const outcome = await runOperation(deps, {
          surface: 'mcp',
          requestId: request.id,
          route: name,
          method: 'tools/call',
          toolName: name,
          operation: deps.registry.byName.get(name)?.mcp ? deps.registry.byName.get(name) : undefined,
          input: params.arguments ?? {},
          coerce: false,
          principal,
          toolFilter: selectedTools(deps.registry, selection, session?.profiles),
          mcpSession: session,
        });
        reply.headers(outcome.headers);
        if (outcome.ok && name === 'enable_toolset' && session) {
          const profiles = (outcome.body.session as { profiles: string[] }).profiles;
          const changed =
            listedNames(principal, selection, session.profiles) !==
            listedNames(principal, selection, profiles);
          const streams = String(request.headers.accept ?? '').includes('text/event-stream');
          if (changed && streams) {
            const answer = { jsonrpc: '2.0', id, result: toolResult(outcome.body, false) };
            const notice = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
            return reply
              .header('content-type', 'text/event-stream')
              .header('cache-control', 'no-cache')
              .send(eventStream([notice, answer]));
          }
        }
        if (outcome.ok) return result(toolResult(outcome.body, false));
        return result(
          toolResult(envelope(outcome.error, request) as unknown as Record<string, unknown>, true),
        );
      }
      default: {
        const error = validationFailed([
          { field: 'method', message: 'is not a method this MCP server supports' },
        ]);
        return reply.send(rpcError(id, JSONRPC.methodNotFound, 'Method not found', envelope(error, request)));
      }
    }
  }

  const methodNotAllowed = async (_request: FastifyRequest, reply: FastifyReply) =>
    sendError(
      reply,
      fail('method_not_allowed', {
        allow: ['POST'],
        message: 'POST one JSON-RPC message; DELETE with an Mcp-Session-Id header ends that session.',
      }),
      deps.config.publicUrl,
    );
  app.get('/mcp', methodNotAllowed);
  // DELETE ends the session its Mcp-Session-Id names (204); without the header there is nothing to end.
  app.delete('/mcp', async (request, reply) => {
    const sessionId = headerOf(request, SESSION_HEADER);
    if (sessionId === undefined) return methodNotAllowed(request, reply);
    try {
      if (!originAllowed(request.headers.origin)) throw fail('origin_not_allowed');
      const { authorization } = request.headers;
      const principal = await deps.authThrottle.guard(request.ip, authorization, () =>
        authenticate(db, authorization, 'mcp', deps.principals),
      );
      if (!(await endSession(db, ownerOf(principal), sessionId))) throw fail('mcp_session_not_found');
      return reply.code(204).send();
    } catch (thrown) {
      const error = asServiceError(thrown);
      if (error.status === 401) reply.header('www-authenticate', 'Bearer');
      return reply
        .code(error.status)
        .send(rpcError(null, JSONRPC.serverError, error.message, envelope(error, request)));
    }
  });
}
