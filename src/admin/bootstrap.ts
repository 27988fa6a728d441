import type { Kysely } from 'kysely';
import type { Config } from '../config.ts';
import { SCOPES } from '../core/catalogue.ts';
import type { Clock } from '../core/clock.ts';
import { fail } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import { bearerToken, generateToken, hashesEqual, hashToken } from '../core/tokens.ts';
import { PROFILE_NAMES } from '../core/tool-profiles.ts';
import { withInstallationLock } from '../db/dialect.ts';
import type { DB } from '../db/tables.ts';
import { createCredential, createWorkspace } from './workspace-admin.ts';

const OPERATOR_TOKEN_KEY = 'operator_token_hash';

export interface FirstStart {
  operatorToken?: string;
  workspace?: { id: string; name: string; apiKey: string; mcpToken: string };
}

const storedOperatorHash = async (db: Kysely<DB>) =>
  (
    await db
      .selectFrom('installation')
      .select('value')
      .where('key', '=', OPERATOR_TOKEN_KEY)
      .executeTakeFirst()
  )?.value;

/** How an operator changes the token on purpose (docs/contract.md section 3). */
export const ROTATE_HINT =
  'To change the operator token on purpose, run `wos operator-token rotate` once with the new WOS_ADMIN_TOKEN ' +
  '(and the database settings of this installation), then give every node that value.';

/**
 * WOS_ADMIN_TOKEN becomes the operator token of a new installation; without it, one is generated on first
 * start and returned once. A node whose WOS_ADMIN_TOKEN differs from the stored token refuses to start:
 * the nodes of one database share one operator token, and a stray value must not replace it.
 */
export async function ensureOperatorToken(db: Kysely<DB>, config: Config): Promise<string | undefined> {
  const stored = await storedOperatorHash(db);
  if (config.adminToken) {
    const hash = hashToken(config.adminToken);
    if (stored === undefined) {
      await db
        .insertInto('installation')
        .values({ key: OPERATOR_TOKEN_KEY, value: hash })
        .onConflict((oc) => oc.column('key').doNothing())
        .execute();
    }
    const current = stored ?? (await storedOperatorHash(db));
    if (current !== undefined && !hashesEqual(current, hash)) {
      throw new Error(
        'WOS_ADMIN_TOKEN differs from the operator token stored in this database (set by another node, an ' +
          'earlier start or a rotation), so this node does not start: give every node the same WOS_ADMIN_TOKEN. ' +
          ROTATE_HINT,
      );
    }
    return undefined;
  }
  if (stored !== undefined) return undefined;
  const token = generateToken('operator');
  await db
    .insertInto('installation')
    .values({ key: OPERATOR_TOKEN_KEY, value: hashToken(token) })
    .execute();
  return token;
}

/** `wos operator-token rotate`: the stored operator token becomes WOS_ADMIN_TOKEN; the old one stops working. */
export async function rotateOperatorToken(db: Kysely<DB>, token: string): Promise<void> {
  const hash = hashToken(token);
  await db
    .insertInto('installation')
    .values({ key: OPERATOR_TOKEN_KEY, value: hash })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value: hash }))
    .execute();
}

/** On the very first start, a "Default" workspace with an API key and an MCP token holding every scope. */
export async function ensureDefaultWorkspace(
  db: Kysely<DB>,
  config: Config,
  clock: Clock,
): Promise<FirstStart['workspace']> {
  const anyWorkspace = await db.selectFrom('workspaces').select('id').limit(1).executeTakeFirst();
  if (anyWorkspace) return undefined;
  const call = {
    db,
    clock,
    requestId: newId('req'),
    surface: 'cli' as const,
    defaultRateLimitPerMinute: config.defaultRateLimitPerMinute,
  };
  const workspace = await createWorkspace(call, { name: 'Default' });
  const apiKey = await createCredential(call, workspace.id, {
    kind: 'api_key',
    name: 'Default API key',
    scopes: [...SCOPES],
  });
  const mcpToken = await createCredential(call, workspace.id, {
    kind: 'mcp_token',
    name: 'Default MCP token',
    scopes: [...SCOPES],
  });
  return { id: workspace.id, name: workspace.name, apiKey: apiKey.token, mcpToken: mcpToken.token };
}

/**
 * The first-start bootstrap, once per installation: nodes starting together on an empty database take
 * turns (an advisory lock on PostgreSQL), so the second finds what the first created.
 */
export async function bootstrap(db: Kysely<DB>, config: Config, clock: Clock): Promise<FirstStart> {
  return withInstallationLock(db, 'bootstrap', async (locked) => {
    const operatorToken = await ensureOperatorToken(locked, config);
    const workspace = await ensureDefaultWorkspace(locked, config, clock);
    return { ...(operatorToken ? { operatorToken } : {}), ...(workspace ? { workspace } : {}) };
  });
}

export async function verifyOperator(db: Kysely<DB>, authorization: string | undefined): Promise<void> {
  const token = bearerToken(authorization);
  if (!token)
    throw fail('authentication_required', {
      message: 'Send the operator token as "Authorization: Bearer <token>".',
    });
  const stored = await storedOperatorHash(db);
  if (!stored || !hashesEqual(stored, hashToken(token))) {
    throw fail('authentication_required', {
      message: 'That is not the operator token of this installation.',
    });
  }
}

export function firstStartMessage(first: FirstStart, config: Config): string | undefined {
  if (!first.operatorToken && !first.workspace) return undefined;
  const lines = ['', '================ wos: first start ================'];
  if (first.operatorToken) {
    lines.push('Operator token (for /admin/v1 and shown only now; set WOS_ADMIN_TOKEN to choose your own):');
    lines.push(`  ${first.operatorToken}`);
  }
  if (first.workspace) {
    const { id, apiKey, mcpToken } = first.workspace;
    lines.push(
      `Workspace "Default" (${id}) was created. These tokens hold every scope and are shown only now:`,
    );
    lines.push(`  API key:   ${apiKey}`, `  MCP token: ${mcpToken}`, '', 'Try it:');
    lines.push(
      `  curl -s ${config.publicUrl}/v1/contacts -H "Authorization: Bearer ${apiKey}" \\`,
      `    -H "Content-Type: application/json" -d '{"name":"Ada Lovelace","email":"ada@example.com"}'`,
      '',
      'MCP client configuration (a profile lists the tools of one kind of work; without ?profile= every tool):',
      JSON.stringify(
        {
          mcpServers: {
            wos: {
              type: 'http',
              url: `${config.publicUrl}/mcp?profile=core,crm`,
              headers: { Authorization: `Bearer ${mcpToken}` },
            },
          },
        },
        null,
        2,
      )
        .split('\n')
        .map((l) => `  ${l}`)
        .join('\n'),
      `Profiles: ${PROFILE_NAMES.join(', ')}. find_tools names the profile of any tool.`,
    );
  }
  lines.push('==================================================', '');
  return lines.join('\n');
}
