// Monthly range partitions of the append-only tables on PostgreSQL (app_events, call_events, audit_events):
// retention drops a whole month instead of deleting its rows. Each table is partitioned by its ISO 8601
// text column occurred_at, has a `<table>_default` partition for rows outside every month made so far,
// and `<table>_YYYY_MM` partitions made ahead of their rows by a periodic job. SQLite has one table per
// name: these functions do nothing there.
import { type Kysely, sql } from 'kysely';
import { isPostgres } from './dialect.ts';

export { isPostgres };

export type PartitionedTable = 'app_events' | 'call_events' | 'audit_events';

/** YYYY-MM of the month `offset` months after the one holding `at`. */
export function monthOf(at: Date, offset = 0): string {
  const date = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + offset, 1));
  return date.toISOString().slice(0, 7);
}

/** The first instant after the month YYYY-MM. */
export function monthEnd(month: string): Date {
  return new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1));
}

export const partitionName = (table: PartitionedTable, month: string) =>
  `${table}_${month.replace('-', '_')}`;

/** The month partitions of `table` in the current schema, oldest first. */
export async function monthPartitions(
  db: Kysely<any>,
  table: PartitionedTable,
): Promise<{ name: string; month: string }[]> {
  if (!isPostgres(db)) return [];
  const result = await sql<{ name: string }>`select c.relname as name from pg_inherits i
    join pg_class c on c.oid = i.inhrelid
    join pg_class p on p.oid = i.inhparent
    join pg_namespace n on n.oid = p.relnamespace
    where p.relname = ${table} and n.nspname = current_schema()`.execute(db);
  const pattern = new RegExp(`^${table}_(\\d{4})_(\\d{2})$`);
  return result.rows
    .flatMap(({ name }) => {
      const match = pattern.exec(name);
      return match ? [{ name, month: `${match[1]}-${match[2]}` }] : [];
    })
    .sort((a, b) => a.month.localeCompare(b.month));
}

/**
 * Creates the partitions of `table` for the months from `from` to `to` (inclusive) that do not exist. Rows
 * of such a month already in the default partition (written while the service was stopped longer than the
 * job looks ahead, or a moment before the month's partition is made) would make a plain CREATE ... PARTITION
 * OF fail, so that month's table is made on its own, the rows moved into it and the table attached, in one
 * transaction.
 */
export async function ensureMonthPartitions(
  db: Kysely<any>,
  table: PartitionedTable,
  from: Date,
  to: Date,
): Promise<string[]> {
  if (!isPostgres(db)) return [];
  const existing = new Set((await monthPartitions(db, table)).map((p) => p.month));
  const created: string[] = [];
  for (let offset = 0; monthOf(from, offset) <= monthOf(to); offset++) {
    const month = monthOf(from, offset);
    if (existing.has(month)) continue;
    await createMonthPartition(db, table, month);
    created.push(partitionName(table, month));
  }
  return created;
}

async function createMonthPartition(db: Kysely<any>, table: PartitionedTable, month: string) {
  const name = sql.id(partitionName(table, month));
  // Bounds are text: occurred_at is ISO 8601, which sorts as it reads.
  const lower = sql.lit(`${month}-01`);
  const upper = sql.lit(`${monthOf(monthEnd(month))}-01`);
  const fallback = sql.id(`${table}_default`);
  const create = async (trx: Kysely<any>) => {
    // No row may reach the default partition between the look for strays and the partition's creation (a
    // write committed in between would make the creation fail): the lock waits for writes in flight there
    // and holds new ones until the commit. It also makes two nodes creating the same month take turns.
    await sql`lock table ${fallback} in share row exclusive mode`.execute(trx);
    const strays =
      await sql`select 1 from ${fallback} where occurred_at >= ${lower} and occurred_at < ${upper}
      limit 1`.execute(trx);
    if (strays.rows.length === 0) {
      await sql`create table if not exists ${name} partition of ${sql.id(table)}
        for values from (${lower}) to (${upper})`.execute(trx);
      return;
    }
    await sql`create table ${name} (like ${sql.id(table)} including defaults)`.execute(trx);
    await sql`with moved as (delete from ${fallback} where occurred_at >= ${lower} and occurred_at < ${upper}
      returning *) insert into ${name} select * from moved`.execute(trx);
    await sql`alter table ${sql.id(table)} attach partition ${name}
      for values from (${lower}) to (${upper})`.execute(trx);
  };
  if (db.isTransaction) await create(db);
  else await db.transaction().execute(create);
}

/** The month partitions of `table` that end on or before `cutoff` (every row in them is older). */
export async function expiredMonthPartitions(
  db: Kysely<any>,
  table: PartitionedTable,
  cutoff: Date,
): Promise<string[]> {
  return (await monthPartitions(db, table))
    .filter((p) => monthEnd(p.month).getTime() <= cutoff.getTime())
    .map((p) => p.name);
}

/** Drops the month partitions of `table` that end on or before `cutoff`. */
export async function dropMonthPartitionsBefore(
  db: Kysely<any>,
  table: PartitionedTable,
  cutoff: Date,
): Promise<string[]> {
  const dropped = await expiredMonthPartitions(db, table, cutoff);
  for (const name of dropped) await sql`drop table if exists ${sql.id(name)}`.execute(db);
  return dropped;
}
