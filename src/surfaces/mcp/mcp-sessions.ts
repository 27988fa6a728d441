// MCP sessions: initialize answers an Mcp-Session-Id; a client that sends it back on later requests keeps
// the profiles enable_toolset added to its listing. Stored in the database, so any node serves the next
// request; bound to the credential that initialized it (another credential's ID is unknown to it).
import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { fail } from '../../core/errors.ts';
import type { DB } from '../../db/tables.ts';

export const SESSION_HEADER = 'mcp-session-id';
/** A session unused this long is gone (404 mcp_session_not_found; the client initializes again). */
export const SESSION_IDLE_MS = 24 * 3_600_000;
/** last_used_at moves at most this often: a request reads its session, it seldom writes it. */
const TOUCH_EVERY_MS = 3_600_000;

export interface McpSession {
  id: string;
  profiles: readonly string[];
}

interface Owner {
  workspaceId: string;
  credentialId: string;
}

/** A new session of this credential; sessions of the workspace idle past their time are deleted. */
export async function createSession(db: Kysely<DB>, owner: Owner, now: Date): Promise<McpSession> {
  const at = now.toISOString();
  await db
    .deleteFrom('mcp_sessions')
    .where('workspace_id', '=', owner.workspaceId)
    .where('last_used_at', '<', new Date(now.getTime() - SESSION_IDLE_MS).toISOString())
    .execute();
  // Random, not time-ordered: a session ID is not guessable from another one.
  const id = `mcps_${randomBytes(24).toString('base64url')}`;
  await db
    .insertInto('mcp_sessions')
    .values({
      id,
      workspace_id: owner.workspaceId,
      credential_id: owner.credentialId,
      profiles: '[]',
      created_at: at,
      last_used_at: at,
    })
    .execute();
  return { id, profiles: [] };
}

/** The session this header names, for this credential, if it is live; throws mcp_session_not_found. */
export async function requireSession(
  db: Kysely<DB>,
  owner: Owner,
  id: string,
  now: Date,
): Promise<McpSession> {
  const row = await db
    .selectFrom('mcp_sessions')
    .select(['profiles', 'last_used_at'])
    .where('workspace_id', '=', owner.workspaceId)
    .where('id', '=', id)
    .where('credential_id', '=', owner.credentialId)
    .executeTakeFirst();
  const idle = row ? now.getTime() - Date.parse(row.last_used_at) : Number.POSITIVE_INFINITY;
  if (!row || idle >= SESSION_IDLE_MS) throw fail('mcp_session_not_found');
  if (idle >= TOUCH_EVERY_MS) {
    await db
      .updateTable('mcp_sessions')
      .set({ last_used_at: now.toISOString() })
      .where('workspace_id', '=', owner.workspaceId)
      .where('id', '=', id)
      .execute();
  }
  return { id, profiles: JSON.parse(row.profiles) as string[] };
}

/** Ends a session (DELETE /mcp); false when this credential has no such session. */
export async function endSession(db: Kysely<DB>, owner: Owner, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('mcp_sessions')
    .where('workspace_id', '=', owner.workspaceId)
    .where('id', '=', id)
    .where('credential_id', '=', owner.credentialId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
