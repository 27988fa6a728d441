// The operator API (/admin/v1), declared once: each entry's method, path, texts, body schema, response
// schema and status give both the Fastify route (admin-routes.ts) and /admin/openapi.json (admin-openapi.ts).
import { type TObject, Type } from '@sinclair/typebox';
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
import { dismissFailure, listFailures } from '../../core/outbox-failures.ts';
import { RecordId, Shape } from '../../core/resource-schema.ts';
import { requestId } from '../../core/response-schema.ts';
import { noteRecord } from '../../modules/crm/crm-records.ts';
import { restoreVectorCollection } from '../../modules/data-agents/vectors/collection-restore.ts';
import { VectorCollectionSchema } from '../../modules/data-agents/vectors/vector-schemas.ts';
import {
  CreatedCredentialSchema,
  CredentialSchema,
  createCredentialBody,
  createWorkspaceBody,
  OperatorRequestRecordSchema,
  OutboxFailureSchema,
  updateWorkspaceBody,
  WorkspaceSchema,
} from './admin-schemas.ts';

/** What an operator route's handler gets: the operator call, its path parameters and its validated body. */
export interface AdminCall {
  operator: OperatorCall;
  params: Record<string, string>;
  body: any;
  /** Writes queued call events before a handler reads or seeds from usage data. */
  flushUsage(): Promise<void>;
}

export interface AdminRoute {
  /** operationId in /admin/openapi.json. */
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Below /admin/v1, OpenAPI-style: /workspaces/{workspace_id}. */
  path: string;
  /** Its group in the reference. */
  tag: 'workspaces' | 'credentials' | 'requests' | 'outbox';
  summary: string;
  description: string;
  /** The JSON body, validated strictly before the handler runs. */
  body?: TObject;
  /** The response body without request_id. */
  response: TObject;
  status: 200 | 201;
  handler: (call: AdminCall) => Promise<Record<string, unknown>>;
}

export const ADMIN_PREFIX = '/admin/v1';

/** The full success body of an operator route: its declared body plus request_id. */
export function adminResponseSchema(route: AdminRoute): TObject {
  return Type.Object(
    { ...route.response.properties, request_id: requestId },
    { additionalProperties: false },
  );
}

export const adminRoutes: AdminRoute[] = [
  {
    name: 'create_workspace',
    method: 'POST',
    path: '/workspaces',
    tag: 'workspaces',
    summary: 'Create a workspace',
    description: 'Creates a tenant. Without `modules` every module is enabled; with it, exactly those.',
    body: createWorkspaceBody,
    response: Shape({ workspace: WorkspaceSchema }),
    status: 201,
    handler: async ({ operator, body }) => ({ workspace: await createWorkspace(operator, body) }),
  },
  {
    name: 'list_workspaces',
    method: 'GET',
    path: '/workspaces',
    tag: 'workspaces',
    summary: 'List workspaces',
    description: 'Every live workspace of the installation, oldest first.',
    response: Shape({ workspaces: Type.Array(WorkspaceSchema) }),
    status: 200,
    handler: async ({ operator }) => ({ workspaces: await listWorkspaces(operator.db) }),
  },
  {
    name: 'get_workspace',
    method: 'GET',
    path: '/workspaces/{workspace_id}',
    tag: 'workspaces',
    summary: 'Get a workspace',
    description: 'One live workspace with its modules, MCP policy, rate limit, billing and entitlements.',
    response: Shape({ workspace: WorkspaceSchema }),
    status: 200,
    handler: async ({ operator, params }) => ({
      workspace: await getWorkspace(operator.db, params.workspace_id!),
    }),
  },
  {
    name: 'update_workspace',
    method: 'PATCH',
    path: '/workspaces/{workspace_id}',
    tag: 'workspaces',
    summary: 'Update a workspace',
    description:
      'Changes the fields sent: `modules` and `entitlements` are merged into the current ones; null lifts a ' +
      'rate limit, a billing limit or an entitlement.',
    body: updateWorkspaceBody,
    response: Shape({ workspace: WorkspaceSchema }),
    status: 200,
    handler: async ({ operator, params, body, flushUsage }) => {
      // A new monthly cap is seeded from the recorded call events: write the queued ones first.
      await flushUsage();
      return { workspace: await updateWorkspace(operator, params.workspace_id!, body as WorkspacePatch) };
    },
  },
  {
    name: 'delete_workspace',
    method: 'DELETE',
    path: '/workspaces/{workspace_id}',
    tag: 'workspaces',
    summary: 'Delete a workspace',
    description: 'Soft delete: the records stay; every credential of the workspace stops working.',
    response: Shape({ deleted: Type.Literal(true), workspace_id: RecordId('ws') }),
    status: 200,
    handler: async ({ operator, params }) => {
      await deleteWorkspace(operator, params.workspace_id!);
      return { deleted: true, workspace_id: params.workspace_id! };
    },
  },
  {
    name: 'create_credential',
    method: 'POST',
    path: '/workspaces/{workspace_id}/credentials',
    tag: 'credentials',
    summary: 'Create a credential',
    description:
      'Issues an API key or MCP token with the scopes given. The token appears only in this response.',
    body: createCredentialBody,
    response: CreatedCredentialSchema,
    status: 201,
    handler: async ({ operator, params, body }) => createCredential(operator, params.workspace_id!, body),
  },
  {
    name: 'list_credentials',
    method: 'GET',
    path: '/workspaces/{workspace_id}/credentials',
    tag: 'credentials',
    summary: 'List credentials',
    description: 'The live credentials of a workspace, without their tokens.',
    response: Shape({ credentials: Type.Array(CredentialSchema) }),
    status: 200,
    handler: async ({ operator, params }) => ({
      credentials: await listCredentials(operator.db, params.workspace_id!),
    }),
  },
  {
    name: 'revoke_credential',
    method: 'DELETE',
    path: '/credentials/{credential_id}',
    tag: 'credentials',
    summary: 'Revoke a credential',
    description: 'The credential stops working at once.',
    response: Shape({ revoked: Type.Literal(true), credential_id: RecordId('key') }),
    status: 200,
    handler: async ({ operator, params }) => {
      await revokeCredential(operator, params.credential_id!);
      return { revoked: true, credential_id: params.credential_id! };
    },
  },
  {
    name: 'restore_note',
    method: 'POST',
    path: '/workspaces/{workspace_id}/notes/{note_id}/restore',
    tag: 'workspaces',
    summary: 'Restore an archived note',
    description:
      'Brings an archived note back into every read; a note that is not archived is returned unchanged.',
    response: Shape({ note: noteRecord.schema }),
    status: 200,
    handler: async ({ operator, params }) => ({
      note: await restoreNote(operator, params.workspace_id!, params.note_id!),
    }),
  },
  {
    name: 'restore_vector_collection',
    method: 'POST',
    path: '/workspaces/{workspace_id}/vector-collections/{collection_key}/restore',
    tag: 'workspaces',
    summary: 'Restore an archived vector collection',
    description:
      'Makes an archived vector collection searchable and writable again (its documents were kept); an active one is returned unchanged.',
    response: Shape({ vector_collection: VectorCollectionSchema }),
    status: 200,
    handler: async ({ operator, params }) => ({
      vector_collection: await restoreVectorCollection(
        operator,
        params.workspace_id!,
        params.collection_key!,
      ),
    }),
  },
  {
    name: 'get_request',
    method: 'GET',
    path: '/requests/{request_id}',
    tag: 'requests',
    summary: 'Look up a request',
    description: 'The call event, usage event and audit events recorded for a request ID, in any workspace.',
    response: Shape({ request: OperatorRequestRecordSchema }),
    status: 200,
    handler: async ({ operator, params, flushUsage }) => {
      await flushUsage();
      return { request: await lookupRequest(operator.db, params.request_id!) };
    },
  },
  {
    name: 'list_outbox_failures',
    method: 'GET',
    path: '/outbox-failures',
    tag: 'outbox',
    summary: 'List outbox failures',
    description:
      'Events an event consumer (webhook deliveries, notification rules) failed on, in every workspace, oldest ' +
      'first (at most 500): the ones the relay still retries, and the ones it gave up after ' +
      "WOS_OUTBOX_GIVE_UP_MINUTES so that the workspace's later events could flow.",
    response: Shape({ outbox_failures: Type.Array(OutboxFailureSchema) }),
    status: 200,
    handler: async ({ operator }) => ({
      outbox_failures: await listFailures(operator.db, { system: true }),
    }),
  },
  {
    name: 'dismiss_outbox_failure',
    method: 'DELETE',
    path: '/outbox-failures/{failure_id}',
    tag: 'outbox',
    summary: 'Dismiss a given-up outbox failure',
    description:
      'Removes a given-up failure once dealt with; the event is not handed to the consumer again. A failure ' +
      'the relay still retries answers 409 conflict.',
    response: Shape({ dismissed: Type.Literal(true), failure_id: RecordId('ofl') }),
    status: 200,
    handler: async ({ operator, params }) => {
      await dismissFailure(operator.db, params.failure_id!, { system: true });
      return { dismissed: true, failure_id: params.failure_id! };
    },
  },
];
