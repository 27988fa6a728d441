import type { Kysely } from 'kysely';
import type { TransactionRunner } from '../db/group-commit.ts';
import { reusableQuery } from '../db/reusable-query.ts';
import type { DB, WorkspacesTable } from '../db/tables.ts';
import { fail } from './errors.ts';
import type { PrincipalCache } from './principal-cache.ts';
import { bearerToken, hashesEqual, hashToken } from './tokens.ts';

export type McpAuthMethod = 'mcp_token' | 'api_key';

export interface Workspace {
  id: string;
  name: string;
  modules: Record<string, boolean>;
  mcpAuthMethods: McpAuthMethod[];
  rateLimitPerMinute: number | null;
  creditUnits: number | null;
  monthlyCapUnits: number | null;
  entitlements: Record<string, number | null>;
  createdAt: string;
  updatedAt: string;
}

export interface Credential {
  id: string;
  /** site_key: an Analytics Site's public key (browser ingest); its id is the site's. */
  kind: 'api_key' | 'mcp_token' | 'site_key';
  name: string;
  scopes: ReadonlySet<string>;
}

export interface Principal {
  workspace: Workspace;
  credential: Credential;
}

/**
 * Public keys a web page holds (an Analytics Site's wos_site_...): a browser sends one as ?<queryParam>=
 * (sendBeacon cannot set headers) or as a Bearer token. The module that owns the keys resolves them.
 */
export interface BrowserAccess {
  keyPrefix: string;
  queryParam: string;
  /** The principal the key opens for a request from origin; throws a ServiceError when refused. */
  authenticate(db: Kysely<DB>, key: string, origin: string | undefined, now: Date): Promise<Principal>;
  /** Whether a browser at origin may call with the key (the CORS preflight). */
  allowsOrigin(db: Kysely<DB>, key: string, origin: string, now: Date): Promise<boolean>;
  /**
   * Stage "rate limit" of a call with the key, in place of the workspace's limit (which a key anyone can copy
   * must never use up): counts the call toward the key's own limits, committed whatever becomes of the call,
   * and throws rate_limited when it would pass them.
   */
  admit(transaction: TransactionRunner, principal: Principal, input: unknown, now: Date): Promise<void>;
}

export function toWorkspace(row: WorkspacesTable): Workspace {
  return {
    id: row.id,
    name: row.name,
    modules: JSON.parse(row.modules),
    mcpAuthMethods: JSON.parse(row.mcp_auth_methods),
    rateLimitPerMinute: row.rate_limit_per_minute === null ? null : Number(row.rate_limit_per_minute),
    creditUnits: row.credit_units === null ? null : Number(row.credit_units),
    monthlyCapUnits: row.monthly_cap_units === null ? null : Number(row.monthly_cap_units),
    entitlements: JSON.parse(row.entitlements),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function isModuleEnabled(workspace: Pick<Workspace, 'modules'>, module: string): boolean {
  return workspace.modules[module] !== false;
}

// Work outside a call (a relay consumer) reads the workspace's modules now: compiled once per executor.
const workspaceModules = reusableQuery((db) =>
  db.selectFrom('workspaces').select('modules').where('id', '=', ''),
);

/** The same check for work outside a call: false for a workspace that no longer exists. */
export async function isModuleEnabledIn(
  db: Kysely<DB>,
  workspaceId: string,
  module: string,
): Promise<boolean> {
  const [row] = await workspaceModules(db, [workspaceId]);
  return row !== undefined && isModuleEnabled({ modules: JSON.parse(row.modules) }, module);
}

/** A live workspace by ID (a site key's workspace): undefined when it does not exist or was deleted. */
export async function loadWorkspace(db: Kysely<DB>, workspaceId: string): Promise<Workspace | undefined> {
  const row = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('id', '=', workspaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row && toWorkspace(row);
}

const principalColumns = [
  'c.id as credential_id',
  'c.kind',
  'c.name as credential_name',
  'c.scopes',
  'c.token_hash',
  'w.id',
  'w.name',
  'w.modules',
  'w.mcp_auth_methods',
  'w.rate_limit_per_minute',
  'w.credit_units',
  'w.monthly_cap_units',
  'w.entitlements',
  'w.created_at',
  'w.updated_at',
  'w.deleted_at',
] as const;

const credentialLookup = reusableQuery((db) =>
  db
    .selectFrom('credentials as c')
    .innerJoin('workspaces as w', 'w.id', 'c.workspace_id')
    .select(principalColumns)
    .where('c.token_hash', '=', '')
    .where('c.revoked_at', 'is', null),
);

/**
 * Stage "authenticate" and stage "workspace": a Bearer token resolves to a live credential and its live
 * workspace, and the surface must accept that credential kind. Errors never echo the token.
 */
export async function authenticate(
  db: Kysely<DB>,
  authorization: string | undefined,
  surface: 'rest' | 'mcp',
  cache?: PrincipalCache,
): Promise<Principal> {
  const token = bearerToken(authorization);
  if (!token) throw fail('authentication_required');
  const hash = hashToken(token);
  // Only live credentials are kept, and not those of a workspace with prepaid credit: its credit_units
  // change with every billed call, and the billing stage reads them from here.
  const row = cache
    ? await cache.get(
        hash,
        async () => (await credentialLookup(db, [hash]))[0],
        (found) => !!found && found.deleted_at === null && found.credit_units === null,
      )
    : (await credentialLookup(db, [hash]))[0];
  if (!row || !hashesEqual(row.token_hash, hash) || row.deleted_at !== null)
    throw fail('workspace_not_found');

  const { workspace, credential } = cache ? cachedPrincipal(row) : toPrincipal(row);
  if (surface === 'rest' && credential.kind !== 'api_key') {
    throw fail('credential_not_allowed', {
      message: 'REST takes API keys (wos_sk_...); MCP tokens are for /mcp.',
    });
  }
  if (surface === 'mcp' && !workspace.mcpAuthMethods.includes(row.kind))
    throw fail('mcp_auth_method_not_allowed');
  return { workspace, credential };
}

// A cached row's principal, built once (JSON parsed once): principals are never modified.
const principalsOfRows = new WeakMap<object, Principal>();
function cachedPrincipal(row: Awaited<ReturnType<typeof credentialLookup>>[number]): Principal {
  let principal = principalsOfRows.get(row);
  if (!principal) {
    principal = toPrincipal(row);
    principalsOfRows.set(row, principal);
  }
  return principal;
}

function toPrincipal(row: Awaited<ReturnType<typeof credentialLookup>>[number]): Principal {
  return {
    workspace: toWorkspace(row),
    credential: {
      id: row.credential_id,
      kind: row.kind,
      name: row.credential_name,
      scopes: new Set(JSON.parse(row.scopes) as string[]),
    },
  };
}

/**
 * The principal of a worker call, loaded when the call runs (not when it was scheduled): a credential revoked
 * since, or a deleted workspace, fails as workspace_not_found, as the credential's own call would.
 */
export async function loadPrincipal(
  db: Kysely<DB>,
  workspaceId: string,
  credentialId: string,
): Promise<Principal> {
  const row = await db
    .selectFrom('credentials as c')
    .innerJoin('workspaces as w', 'w.id', 'c.workspace_id')
    .select(principalColumns)
    .where('c.workspace_id', '=', workspaceId)
    .where('c.id', '=', credentialId)
    .where('c.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row || row.deleted_at !== null) throw fail('workspace_not_found');
  return toPrincipal(row);
}
