import type { Static } from '@sinclair/typebox';
import type { Kysely } from 'kysely';
import { newId } from '../../../core/ids.ts';
import { fetchPage, type PageRequest } from '../../../core/pagination.ts';
import { findRow, insertRows, updateRow } from '../../../db/find-row.ts';
import type { DB } from '../../../db/tables.ts';
import { type ExecutionPlaneSchema, JOB_TYPES } from './job-schemas.ts';
import type { DataAgentExecutionPlanesTable } from './job-tables.ts';

export type ExecutionPlane = Static<typeof ExecutionPlaneSchema>;

/** Default lease of a claimed job, when a plane does not set one. */
export const DEFAULT_LEASE_SECONDS = 300;

export function toPlane(row: DataAgentExecutionPlanesTable): ExecutionPlane {
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as ExecutionPlane['kind'],
    status: row.status as ExecutionPlane['status'],
    capabilities: JSON.parse(row.capabilities),
    config: JSON.parse(row.config),
    lease_seconds: row.lease_seconds,
    worker_credential_ids: JSON.parse(row.worker_credential_ids),
    builtin: row.builtin !== null,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export const findPlane = (db: Kysely<DB>, workspaceId: string, id: string) =>
  findRow(db, 'data_agent_execution_planes', workspaceId, id);

export const insertPlane = (db: Kysely<DB>, row: DataAgentExecutionPlanesTable) =>
  insertRows(db, 'data_agent_execution_planes', row);

export const updatePlaneRow = (
  db: Kysely<DB>,
  workspaceId: string,
  id: string,
  changes: Partial<DataAgentExecutionPlanesTable>,
) => updateRow(db, 'data_agent_execution_planes', workspaceId, id, changes);

const findNative = (db: Kysely<DB>, workspaceId: string) =>
  db
    .selectFrom('data_agent_execution_planes')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('builtin', '=', 'native')
    .executeTakeFirst();

/**
 * The workspace's native plane, created on its first use in the caller's transaction. Two first uses at once
 * both insert with ON CONFLICT DO NOTHING on the unique (workspace_id, builtin): one row wins, both read it.
 */
export async function ensureNativePlane(
  db: Kysely<DB>,
  workspaceId: string,
  now: string,
): Promise<{ plane: DataAgentExecutionPlanesTable; created: boolean }> {
  const existing = await findNative(db, workspaceId);
  if (existing) return { plane: existing, created: false };
  const row: DataAgentExecutionPlanesTable = {
    workspace_id: workspaceId,
    id: newId('dxp'),
    name: 'Native',
    kind: 'native',
    status: 'active',
    capabilities: JSON.stringify(JOB_TYPES),
    config: '{}',
    lease_seconds: DEFAULT_LEASE_SECONDS,
    worker_credential_ids: '[]',
    builtin: 'native',
    created_at: now,
    updated_at: now,
  };
  const inserted = await db
    .insertInto('data_agent_execution_planes')
    .values(row)
    .onConflict((oc) => oc.columns(['workspace_id', 'builtin']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1) return { plane: row, created: true };
  return { plane: (await findNative(db, workspaceId))!, created: false };
}

export async function listPlanes(
  db: Kysely<DB>,
  workspaceId: string,
  filters: { kind?: string; status?: string },
  page: PageRequest,
) {
  let query = db
    .selectFrom('data_agent_execution_planes')
    .selectAll()
    .where('workspace_id', '=', workspaceId);
  if (filters.kind) query = query.where('kind', '=', filters.kind);
  if (filters.status) query = query.where('status', '=', filters.status);
  const result = await fetchPage(query, page);
  return { ...result, items: result.items.map(toPlane) };
}

/** Of these IDs, those of live (unrevoked) credentials of the workspace. */
export async function liveCredentialIds(
  db: Kysely<DB>,
  workspaceId: string,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .selectFrom('credentials')
    .select('id')
    .where('workspace_id', '=', workspaceId)
    .where('id', 'in', ids)
    .where('revoked_at', 'is', null)
    .execute();
  return new Set(rows.map((row) => row.id));
}
