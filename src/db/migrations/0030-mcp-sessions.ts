import type { Kysely } from 'kysely';

// MCP sessions (src/surfaces/mcp/mcp-sessions.ts): one row per initialize, bound to its credential, holding
// the profiles enable_toolset added to the session's listing. A session unused for 24 hours is gone.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('mcp_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('credential_id', 'text', (c) => c.notNull())
    .addColumn('profiles', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('mcp_sessions_idle')
    .on('mcp_sessions')
    .columns(['workspace_id', 'last_used_at'])
    .execute();
}
