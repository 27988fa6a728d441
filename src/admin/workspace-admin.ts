// Operator actions on workspaces and credentials, shared by the operator API (/admin/v1) and the CLI.
// These are installation-wide, system-level actions: each says which workspace it acts on.
import type { Kysely } from 'kysely';
import { auditRow, insertAuditEvents } from '../core/audit.ts';
import { loadWorkspace, type McpAuthMethod, toWorkspace, type Workspace } from '../core/auth.ts';
import { seedMonthCounter } from '../core/billing.ts';
import { MODULES } from '../core/catalogue.ts';
import type { Clock } from '../core/clock.ts';
import type { Actor, Surface } from '../core/context.ts';
import { fail } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { forgetCachedPrincipals, notifyPrincipalChange } from '../core/principal-cache.ts';
import { generateToken, hashToken } from '../core/tokens.ts';
import type { CredentialsTable, DB } from '../db/tables.ts';

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 6000;

export interface OperatorCall {
  db: Kysely<DB>;
  clock: Clock;
  requestId: string;
  surface: Extract<Surface, 'admin' | 'cli'>;
  defaultRateLimitPerMinute?: number;
}

const operator: Actor = { type: 'operator', credentialId: null, name: 'operator' };

/** Operator lookups span the installation, so their 404s speak of the ID, not of "this workspace". */
export const noWorkspace = () => fail('resource_not_found', { message: 'No workspace has this ID.' });

export function toWorkspaceResource(workspace: Workspace) {
  return {
    id: workspace.id,
    name: workspace.name,
    modules: Object.fromEntries(MODULES.map((m) => [m, workspace.modules[m] !== false])),
    mcp_auth_methods: workspace.mcpAuthMethods,
    rate_limit_per_minute: workspace.rateLimitPerMinute,
    billing: { credit_units: workspace.creditUnits, monthly_cap_units: workspace.monthlyCapUnits },
    entitlements: workspace.entitlements,
    created_at: workspace.createdAt,
    updated_at: workspace.updatedAt,
  };
}

export function toCredentialResource(
  row: Pick<CredentialsTable, 'id' | 'kind' | 'name' | 'scopes' | 'created_at'>,
) {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    scopes: JSON.parse(row.scopes) as string[],
    created_at: row.created_at,
  };
}

async function audit(
  call: OperatorCall,
  workspaceId: string,
  tool: string,
  action: string,
  target: { type: string; id: string },
  changedFields: string[],
) {
  const write = {
    workspaceId,
    requestId: call.requestId,
    occurredAt: call.clock.now().toISOString(),
    actor: operator,
    surface: call.surface,
    tool,
    defaultAction: action,
  };
  await insertAuditEvents(call.db, [
    auditRow(write, { targetType: target.type, targetId: target.id, changedFields }),
  ]);
}

export async function createWorkspace(call: OperatorCall, input: { name: string; modules?: string[] }) {
  const now = call.clock.now().toISOString();
  const id = newId('ws');
  const modules = input.modules
    ? Object.fromEntries(MODULES.map((m) => [m, input.modules!.includes(m)]))
    : {};
  await call.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('workspaces')
      .values({
        id,
        name: input.name,
        modules: JSON.stringify(modules),
        mcp_auth_methods: JSON.stringify(['mcp_token', 'api_key']),
        rate_limit_per_minute: call.defaultRateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
        credit_units: null,
        monthly_cap_units: null,
        entitlements: '{}',
        created_at: now,
        updated_at: now,
        deleted_at: null,
      })
      .execute();
    await audit(
      { ...call, db: trx },
      id,
      'admin.create_workspace',
      'create',
      { type: 'workspace', id },
      Object.keys(input),
    );
  });
  return getWorkspace(call.db, id);
}

/** A live workspace (the same lookup site keys use). */
export const findWorkspace = loadWorkspace;

export async function getWorkspace(db: Kysely<DB>, workspaceId: string) {
  const workspace = await findWorkspace(db, workspaceId);
  if (!workspace) throw noWorkspace();
  return toWorkspaceResource(workspace);
}

/** Every live workspace, oldest first; an operator's view across tenants. */
export async function listWorkspaces(db: Kysely<DB>) {
  const rows = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map((row) => toWorkspaceResource(toWorkspace(row)));
}

export interface WorkspacePatch {
  name?: string;
  modules?: Record<string, boolean>;
  mcp_auth_methods?: McpAuthMethod[];
  rate_limit_per_minute?: number | null;
  billing?: { credit_units?: number | null; monthly_cap_units?: number | null };
  entitlements?: Record<string, number | null>;
}

export async function updateWorkspace(call: OperatorCall, workspaceId: string, patch: WorkspacePatch) {
  const current = await findWorkspace(call.db, workspaceId);
  if (!current) throw noWorkspace();
  const unknownModule = Object.keys(patch.modules ?? {}).find(
    (m) => !(MODULES as readonly string[]).includes(m),
  );
  if (unknownModule)
    throw fail('validation_failed', {
      field_errors: [{ field: `modules.${unknownModule}`, message: 'is not a module' }],
    });
  const set: Record<string, unknown> = { updated_at: call.clock.now().toISOString() };
  if (patch.name !== undefined) set.name = patch.name;
  if (patch.modules) set.modules = JSON.stringify({ ...current.modules, ...patch.modules });
  if (patch.mcp_auth_methods) set.mcp_auth_methods = JSON.stringify(patch.mcp_auth_methods);
  if (patch.rate_limit_per_minute !== undefined) set.rate_limit_per_minute = patch.rate_limit_per_minute;
  if (patch.billing?.credit_units !== undefined) set.credit_units = patch.billing.credit_units;
  if (patch.billing?.monthly_cap_units !== undefined) set.monthly_cap_units = patch.billing.monthly_cap_units;
  if (patch.entitlements) {
    const merged = { ...current.entitlements, ...patch.entitlements };
    for (const [type, max] of Object.entries(merged)) if (max === null) delete merged[type];
    set.entitlements = JSON.stringify(merged);
  }
  await call.db.transaction().execute(async (trx) => {
    await trx.updateTable('workspaces').set(set).where('id', '=', workspaceId).execute();
    // Every node's cached credentials of the workspace carry its settings: dropped at commit.
    await notifyPrincipalChange(trx, workspaceId);
    if (patch.billing?.monthly_cap_units !== undefined && patch.billing.monthly_cap_units !== null) {
      await seedMonthCounter(trx, workspaceId, call.clock.now());
    }
    await audit(
      { ...call, db: trx },
      workspaceId,
      'admin.update_workspace',
      'update',
      { type: 'workspace', id: workspaceId },
      Object.keys(patch),
    );
  });
  forgetCachedPrincipals();
  return getWorkspace(call.db, workspaceId);
}

/** Soft delete: the records stay, every credential of the workspace stops working (workspace_not_found). */
export async function deleteWorkspace(call: OperatorCall, workspaceId: string) {
  const current = await findWorkspace(call.db, workspaceId);
  if (!current) throw noWorkspace();
  const now = call.clock.now().toISOString();
  await call.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('workspaces')
      .set({ deleted_at: now, updated_at: now })
      .where('id', '=', workspaceId)
      .execute();
    await notifyPrincipalChange(trx, workspaceId);
    await audit(
      { ...call, db: trx },
      workspaceId,
      'admin.delete_workspace',
      'delete',
      { type: 'workspace', id: workspaceId },
      [],
    );
  });
  forgetCachedPrincipals();
}

export async function createCredential(
  call: OperatorCall,
  workspaceId: string,
  input: { kind: 'api_key' | 'mcp_token'; name: string; scopes: string[] },
) {
  if (!(await findWorkspace(call.db, workspaceId))) throw noWorkspace();
  const token = generateToken(input.kind);
  const row: CredentialsTable = {
    workspace_id: workspaceId,
    id: newId(input.kind === 'api_key' ? 'key' : 'mcpt'),
    kind: input.kind,
    name: input.name,
    scopes: JSON.stringify([...new Set(input.scopes)]),
    token_hash: hashToken(token),
    created_at: call.clock.now().toISOString(),
    revoked_at: null,
  };
  await call.db.transaction().execute(async (trx) => {
    await trx.insertInto('credentials').values(row).execute();
    await audit(
      { ...call, db: trx },
      workspaceId,
      'admin.create_credential',
      'create',
      { type: 'credential', id: row.id },
      ['kind', 'name', 'scopes'],
    );
  });
  return { credential: toCredentialResource(row), token };
}

export async function listCredentials(db: Kysely<DB>, workspaceId: string) {
  if (!(await findWorkspace(db, workspaceId))) throw noWorkspace();
  const rows = await db
    .selectFrom('credentials')
    .select(['id', 'kind', 'name', 'scopes', 'created_at'])
    .where('workspace_id', '=', workspaceId)
    .where('revoked_at', 'is', null)
    .orderBy('id')
    .execute();
  return rows.map(toCredentialResource);
}

export async function revokeCredential(call: OperatorCall, credentialId: string) {
  const row = await call.db
    .selectFrom('credentials')
    .select(['workspace_id', 'id'])
    .where('id', '=', credentialId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw fail('resource_not_found', { message: 'No live credential has this ID.' });
  await call.db.transaction().execute(async (trx) => {
    await trx
      .updateTable('credentials')
      .set({ revoked_at: call.clock.now().toISOString() })
      .where('workspace_id', '=', row.workspace_id)
      .where('id', '=', row.id)
      .execute();
    // The credential stops working on every node when this commits, not when their caches expire.
    await notifyPrincipalChange(trx, row.workspace_id);
    await audit(
      { ...call, db: trx },
      row.workspace_id,
      'admin.revoke_credential',
      'revoke',
      { type: 'credential', id: row.id },
      [],
    );
  });
  forgetCachedPrincipals();
}
