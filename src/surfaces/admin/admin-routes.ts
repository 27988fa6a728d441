// The operator API (/admin/v1): workspaces, credentials and request lookups, with the operator token.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyOperator } from '../../admin/bootstrap.ts';
import { restoreNote } from '../../admin/note-restore.ts';
import { lookupRequest } from '../../admin/request-lookup.ts';
import {
  createCredential,
  createWorkspace,
  deleteWorkspace,
  getWorkspace,
  listCredentials,
  listWorkspaces,
  type OperatorCall,
  revokeCredential,
  updateWorkspace,
  type WorkspacePatch,
} from '../../admin/workspace-admin.ts';
import type { Clock } from '../../core/clock.ts';
import { asServiceError, validationFailed } from '../../core/errors.ts';
import { MALFORMED_JSON, type PipelineDeps } from '../../core/run-operation.ts';
import { assertValid, compileSchema } from '../../core/schema.ts';
import { sendError } from '../http-errors.ts';
import { createCredentialBody, createWorkspaceBody, updateWorkspaceBody } from './admin-schemas.ts';

const validators = {
  createWorkspace: compileSchema(createWorkspaceBody).strict,
  updateWorkspace: compileSchema(updateWorkspaceBody).strict,
  createCredential: compileSchema(createCredentialBody).strict,
};

function body<T>(request: FastifyRequest, validate: (typeof validators)[keyof typeof validators]): T {
  if (request.body === MALFORMED_JSON) throw validationFailed([{ field: '(body)', message: 'is not valid JSON' }]);
  return assertValid<T>(validate, request.body ?? {});
}

export function registerAdminRoutes(app: FastifyInstance, deps: PipelineDeps & { clock: Clock }): void {
  const db = deps.database.db;
  type Handler = (request: FastifyRequest, call: OperatorCall) => Promise<{ status?: number; body?: Record<string, unknown> }>;

  const route = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, handler: Handler) =>
    app.route({
      method,
      url: `/admin/v1${url}`,
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        try {
          await verifyOperator(db, request.headers.authorization);
          const call: OperatorCall = {
            db,
            clock: deps.clock,
            requestId: request.id,
            surface: 'admin',
            defaultRateLimitPerMinute: deps.config.defaultRateLimitPerMinute,
          };
          const result = await handler(request, call);
          if (!result.body) return reply.code(result.status ?? 204).send();
          return reply.code(result.status ?? 200).send({ ...result.body, request_id: request.id });
        } catch (thrown) {
          const error = asServiceError(thrown);
          if (error.code === 'internal_error') deps.logger.error({ err: thrown, request_id: request.id }, 'admin call failed');
          return sendError(reply, error, deps.config.publicUrl);
        }
      },
    });

  const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name]!;

  route('POST', '/workspaces', async (request, call) => ({
    status: 201,
    body: { workspace: await createWorkspace(call, body(request, validators.createWorkspace)) },
  }));
  route('GET', '/workspaces', async () => ({ body: { workspaces: await listWorkspaces(db) } }));
  route('GET', '/workspaces/:workspace_id', async (request) => ({
    body: { workspace: await getWorkspace(db, param(request, 'workspace_id')) },
  }));
  route('PATCH', '/workspaces/:workspace_id', async (request, call) => {
    const patch = body<WorkspacePatch>(request, validators.updateWorkspace);
    // A new monthly cap is seeded from the recorded call events: write the queued ones first.
    await deps.usage.flush();
    return { body: { workspace: await updateWorkspace(call, param(request, 'workspace_id'), patch) } };
  });
  route('DELETE', '/workspaces/:workspace_id', async (request, call) => {
    await deleteWorkspace(call, param(request, 'workspace_id'));
    return { body: { deleted: true, workspace_id: param(request, 'workspace_id') } };
  });
  route('POST', '/workspaces/:workspace_id/credentials', async (request, call) => ({
    status: 201,
    body: await createCredential(call, param(request, 'workspace_id'), body(request, validators.createCredential)),
  }));
  route('GET', '/workspaces/:workspace_id/credentials', async (request) => ({
    body: { credentials: await listCredentials(db, param(request, 'workspace_id')) },
  }));
  route('DELETE', '/credentials/:credential_id', async (request, call) => {
    await revokeCredential(call, param(request, 'credential_id'));
    return { body: { revoked: true, credential_id: param(request, 'credential_id') } };
  });
  route('POST', '/workspaces/:workspace_id/notes/:note_id/restore', async (request, call) => ({
    body: { note: await restoreNote(call, param(request, 'workspace_id'), param(request, 'note_id')) },
  }));
  route('GET', '/requests/:request_id', async (request) => {
    await deps.usage.flush();
    return { body: { request: await lookupRequest(db, param(request, 'request_id')) } };
  });
}
