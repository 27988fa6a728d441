import { Type } from '@sinclair/typebox';
import { diffFields, inputFields, requireSomeField } from '../../../core/changes.ts';
import type { OperationContext } from '../../../core/context.ts';
import { defineOperation } from '../../../core/define-operation.ts';
import { notFound, validationFailed } from '../../../core/errors.ts';
import { newId } from '../../../core/ids.ts';
import { listBody, pageInput, pageRequest } from '../../../core/pagination.ts';
import { defineRecordType } from '../../../core/record-types.ts';
import { Enum } from '../../../core/resource-schema.ts';
import { MapOf, Strict } from '../../../core/schema.ts';
import { ExecutionPlaneSchema, JOB_TYPES, PLANE_KINDS, PLANE_STATUSES } from './job-schemas.ts';
import type { DataAgentExecutionPlanesTable } from './job-tables.ts';
import {
  DEFAULT_LEASE_SECONDS,
  ensureNativePlane,
  findPlane,
  insertPlane,
  listPlanes,
  liveCredentialIds,
  toPlane,
  updatePlaneRow,
} from './plane-store.ts';

export const executionPlaneRecord = defineRecordType({
  type: 'data_agent_execution_plane',
  module: 'data_agents',
  table: 'data_agent_execution_planes',
  collection: '/v1/data-agents/execution-planes',
  key: 'execution_plane',
  readScope: 'data_agents:read',
  schema: ExecutionPlaneSchema,
  toResource: toPlane,
});

/** The workspace's native plane, created (and audited) on the first use of a write. */
export async function nativePlane(ctx: OperationContext): Promise<DataAgentExecutionPlanesTable> {
  const { plane, created } = await ensureNativePlane(ctx.db, ctx.workspaceId, ctx.now);
  if (created) {
    ctx.audit({ targetType: 'data_agent_execution_plane', targetId: plane.id, action: 'create' });
    ctx.emit({
      name: 'data_agent_execution_plane.created',
      targetType: 'data_agent_execution_plane',
      targetId: plane.id,
      data: toPlane(plane),
    });
  }
  return plane;
}

// Configuration is shown to every reader and written to logs of workers: secrets belong elsewhere.
const SECRET_KEY = /secret|password|passwd|token|api[_-]?key|credential|private[_-]?key/i;
const configInput = () =>
  MapOf(Type.Union([Type.String({ maxLength: 2000 }), Type.Number(), Type.Boolean()]), {
    description: 'Non-secret settings for the workers (region, queue name). Keys naming secrets are refused.',
  });

function checkConfig(config: Record<string, unknown> | undefined) {
  if (!config) return;
  const keys = Object.keys(config);
  if (keys.length > 50) throw validationFailed([{ field: 'config', message: 'has more than 50 keys' }]);
  const secret = keys.find((key) => SECRET_KEY.test(key));
  if (secret) {
    throw validationFailed([
      { field: `config.${secret}`, message: 'looks like a secret: planes hold non-secret settings only' },
    ]);
  }
}

const capabilitiesInput = Type.Array(Enum(JOB_TYPES), {
  minItems: 1,
  uniqueItems: true,
  description: 'The job types the plane accepts.',
});
const leaseInput = Type.Integer({
  minimum: 10,
  maximum: 86_400,
  description: `Seconds a claim lasts without a report (default ${DEFAULT_LEASE_SECONDS}).`,
});
const planeIdInput = Type.String({ minLength: 1, maxLength: 255 });
const workersInput = Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
  minItems: 1,
  maxItems: 50,
  uniqueItems: true,
  description:
    'IDs of the credentials (API keys, MCP tokens of this workspace) allowed to claim its jobs; only the one that claimed a job reports on it. Default: the calling credential.',
});

/** Every ID must be a live credential of this workspace (another workspace's is refused the same way). */
async function checkWorkers(ctx: OperationContext, ids: string[] | undefined) {
  if (!ids) return;
  const live = await liveCredentialIds(ctx.db, ctx.workspaceId, ids);
  const errors = ids.flatMap((id, index) =>
    live.has(id)
      ? []
      : [{ field: `worker_credential_ids[${index}]`, message: 'is not a live credential of this workspace' }],
  );
  if (errors.length) throw validationFailed(errors);
}

export const createExecutionPlane = defineOperation({
  name: 'create_data_agent_execution_plane',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'create',
  creates: 'data_agent_execution_plane',
  summary: 'Register an external execution plane',
  description:
    'Registers an external execution plane: a place outside the service where workers claim queued execution jobs (update_data_agent_execution_job) and report logs and output. Give the job types it accepts, non-secret settings and the credentials of its workers (worker_credential_ids, default the calling credential): only they claim its jobs. The native plane (the service itself) exists already, created on first use. Emits data_agent_execution_plane.created.',
  input: Strict({
    name: Type.String({ minLength: 1, maxLength: 200 }),
    kind: Type.Optional(Enum(['external'] as const, { description: 'Only external planes are registered.' })),
    capabilities: capabilitiesInput,
    config: Type.Optional(configInput()),
    lease_seconds: Type.Optional(leaseInput),
    worker_credential_ids: Type.Optional(workersInput),
  }),
  rest: { method: 'POST', path: '/v1/data-agents/execution-planes' },
  responseKey: 'execution_plane',
  handler: async (ctx, input) => {
    checkConfig(input.config);
    await checkWorkers(ctx, input.worker_credential_ids);
    const caller = ctx.actor.credentialId ?? ctx.actor.onBehalfOf;
    const workers = input.worker_credential_ids ?? (caller ? [caller] : []);
    await nativePlane(ctx);
    const row: DataAgentExecutionPlanesTable = {
      workspace_id: ctx.workspaceId,
      id: newId('dxp'),
      name: input.name,
      kind: 'external',
      status: 'active',
      capabilities: JSON.stringify(input.capabilities),
      config: JSON.stringify(input.config ?? {}),
      lease_seconds: input.lease_seconds ?? DEFAULT_LEASE_SECONDS,
      worker_credential_ids: JSON.stringify(workers),
      builtin: null,
      created_at: ctx.now,
      updated_at: ctx.now,
    };
    await insertPlane(ctx.db, row);
    const plane = toPlane(row);
    ctx.audit({
      targetType: 'data_agent_execution_plane',
      targetId: plane.id,
      changedFields: inputFields(input),
    });
    ctx.emit({
      name: 'data_agent_execution_plane.created',
      targetType: 'data_agent_execution_plane',
      targetId: plane.id,
      data: plane,
    });
    return { body: { execution_plane: plane }, createdId: plane.id };
  },
});

export const listExecutionPlanes = defineOperation({
  name: 'list_data_agent_execution_planes',
  module: 'data_agents',
  scopes: ['data_agents:read'],
  kind: 'read',
  summary: 'List execution planes',
  description:
    "Lists the workspace's execution planes, newest first, filtered by kind (native, external) and status. The native plane, where the service runs jobs itself, is always there (created on first use).",
  input: Strict({
    kind: Type.Optional(Enum(PLANE_KINDS)),
    status: Type.Optional(Enum(PLANE_STATUSES)),
    ...pageInput,
  }),
  rest: { method: 'GET', path: '/v1/data-agents/execution-planes' },
  responseKey: 'execution_planes',
  handler: async (ctx, input) => {
    // A first look at the planes is a first use: the native plane is there to be seen.
    if (!input.cursor) await ensureNativePlane(ctx.db, ctx.workspaceId, ctx.now);
    const page = await listPlanes(
      ctx.db,
      ctx.workspaceId,
      input,
      pageRequest('list_data_agent_execution_planes', input),
    );
    return { body: listBody('execution_planes', page) };
  },
});

const PLANE_FIELDS = [
  'name',
  'status',
  'capabilities',
  'config',
  'lease_seconds',
  'worker_credential_ids',
] as const;

export const updateExecutionPlane = defineOperation({
  name: 'update_data_agent_execution_plane',
  module: 'data_agents',
  scopes: ['data_agents:write'],
  kind: 'update',
  summary: 'Change an execution plane',
  description:
    "Changes a plane's name, status (active, inactive: takes no new dispatches and its queued jobs cannot be claimed, degraded: still dispatched, flagged), accepted job types, settings (replaced whole), lease or worker_credential_ids (replaced whole). The native plane keeps its kind, status, job types and workers (only its name changes). Emits data_agent_execution_plane.updated.",
  input: Strict({
    execution_plane_id: planeIdInput,
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Enum(PLANE_STATUSES)),
    capabilities: Type.Optional(capabilitiesInput),
    config: Type.Optional(configInput()),
    lease_seconds: Type.Optional(leaseInput),
    worker_credential_ids: Type.Optional(workersInput),
  }),
  rest: { method: 'PATCH', path: '/v1/data-agents/execution-planes/{execution_plane_id}' },
  responseKey: 'execution_plane',
  handler: async (ctx, input) => {
    requireSomeField(input, PLANE_FIELDS);
    checkConfig(input.config);
    const row = await findPlane(ctx.db, ctx.workspaceId, input.execution_plane_id);
    if (!row) throw notFound('execution plane');
    if (row.builtin) {
      const fixed = PLANE_FIELDS.filter((field) => field !== 'name').filter(
        (field) => input[field] !== undefined,
      );
      if (fixed.length) {
        throw validationFailed(
          fixed.map((field) => ({ field, message: 'cannot change on the native plane (only its name can)' })),
        );
      }
    }
    await checkWorkers(ctx, input.worker_credential_ids);
    const { changes, changed } = diffFields(
      row,
      {
        ...input,
        capabilities: input.capabilities && JSON.stringify(input.capabilities),
        config: input.config && JSON.stringify(input.config),
        worker_credential_ids: input.worker_credential_ids && JSON.stringify(input.worker_credential_ids),
      },
      PLANE_FIELDS,
    );
    const next = { ...row, ...changes, updated_at: changed.length ? ctx.now : row.updated_at };
    if (changed.length)
      await updatePlaneRow(ctx.db, ctx.workspaceId, row.id, { ...changes, updated_at: ctx.now });
    const plane = toPlane(next);
    ctx.audit({ targetType: 'data_agent_execution_plane', targetId: row.id, changedFields: changed });
    if (changed.length) {
      ctx.emit({
        name: 'data_agent_execution_plane.updated',
        targetType: 'data_agent_execution_plane',
        targetId: row.id,
        data: plane,
      });
    }
    return { body: { execution_plane: plane } };
  },
});
