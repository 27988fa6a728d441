// Monthly partitions of app_events on PostgreSQL: retention drops whole months instead of deleting rows.
// SQLite has one table; these functions do nothing there.
import { type Kysely, PostgresAdapter, sql } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** YYYY-MM of the month `offset` months after the one holding `at`. */
export function monthOf(at: Date, offset = 0): string {
  const date = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  return date.toISOString().slice(0, 7);
}

const partitionName = (month: string) => `app_events_${month.replace('-', '_')}`;

/** Creates the partitions of the months from `from` to `to` (YYYY-MM, inclusive) that do not exist. */
export async function ensureMonthPartitions(db: Kysely<any>, from: Date, to: Date): Promise<string[]> {
  if (!isPostgres(db)) return [];
  const created: string[] = [];
  for (let offset = 0; monthOf(from, offset) <= monthOf(to); offset++) {
    const month = monthOf(from, offset);
    const next = monthOf(from, offset + 1);
    const name = partitionName(month);
    const exists = await sql<{ found: number }>`select 1 as found from pg_class c
      join pg_namespace n on n.oid = c.relnamespace
      where c.relname = ${name} and n.nspname = current_schema()`.execute(db);
    if (exists.rows.length) continue;
    // Bounds are text: occurred_at is ISO 8601, which sorts as it reads.
    await sql`create table if not exists ${sql.id(name)} partition of app_events
      for values from (${sql.lit(`${month}-01`)}) to (${sql.lit(`${next}-01`)})`.execute(db);
    created.push(name);
  }
  return created;
}

/** Drops the month partitions that end on or before `cutoff` (every row in them is older). */
export async function dropMonthPartitionsBefore(db: Kysely<any>, cutoff: Date): Promise<string[]> {
  if (!isPostgres(db)) return [];
  const result = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_class p on p.oid = i.inhparent
    join pg_namespace n on n.oid = p.relnamespace
    where p.relname = 'app_events' and n.nspname = current_schema()`.execute(db);
  const dropped: string[] = [];
  for (const { name } of result.rows) {
    const month = /^app_events_(\d{4})_(\d{2})$/.exec(name);
    if (!month) continue;
    const end = new Date(Date.UTC(Number(month[1]), Number(month[2]), 1));
    if (end.getTime() > cutoff.getTime()) continue;
    await sql`drop table if exists ${sql.id(name)}`.execute(db);
    dropped.push(name);
  }
  return dropped;
}
