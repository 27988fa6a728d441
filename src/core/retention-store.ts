// The bounded deletes of retention (src/core/retention-job.ts): each statement removes at most `limit` rows
// and reads at most about that many, so a batch is a short write transaction whatever the table's size.
import { type Kysely, sql } from 'kysely';
import type { DB } from '../db/tables.ts';

/** SQLite: deletes up to `limit` audit events older than `cutoff`, oldest first (index audit_events_occurred). */
export async function deleteOldestAuditSqlite(
  db: Kysely<DB>,
  cutoff: string,
  limit: number,
): Promise<number> {
  const gone = await sql`delete from audit_events where rowid in (select rowid from audit_events
    where occurred_at < ${cutoff} order by occurred_at limit ${limit})`.execute(db);
  return Number(gone.numAffectedRows ?? 0);
}

/** Every workspace, live or deleted (their usage and audit rows age like any other). */
export async function allWorkspaceIds(db: Kysely<DB>, _system: { system: true }): Promise<string[]> {
  return (await db.selectFrom('workspaces').select('id').execute()).map((row) => row.id);
}

/** PostgreSQL: deletes up to `limit` rows older than `cutoff` from one table (a default partition). */
export async function deleteOlderPostgres(
  db: Kysely<DB>,
  table: string,
  cutoff: string,
  limit: number,
): Promise<number> {
  const source = sql.id(table);
  const gone = await sql`delete from ${source} where ctid = any(array(
    select ctid from ${source} where occurred_at < ${cutoff} limit ${limit}))`.execute(db);
  return Number(gone.numAffectedRows ?? 0);
}

/**
 * Deletes up to `limit` outbox events published before `cutoff`, oldest publication first (the
 * (published_at, id) index). An event is published only once every consumer subscribed to it has handled
 * it (outbox-relay.ts), and its outbox_consumptions rows went with the publication, so an event some
 * consumer still owes is never deleted.
 */
export async function deletePublishedOutbox(
  db: Kysely<DB>,
  postgres: boolean,
  cutoff: string,
  limit: number,
): Promise<number> {
  const gone = postgres
    ? await sql`delete from outbox_events where ctid = any(array(select ctid from outbox_events
        where published_at < ${cutoff} order by published_at limit ${limit}))`.execute(db)
    : await sql`delete from outbox_events where rowid in (select rowid from outbox_events
        where published_at < ${cutoff} order by published_at limit ${limit})`.execute(db);
  return Number(gone.numAffectedRows ?? 0);
}
