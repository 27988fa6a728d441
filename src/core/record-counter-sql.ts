import { type RawBuilder, sql } from 'kysely';

// SQL of the record counters (record_counters): the triggers that keep them, on SQLite and PostgreSQL,
// and the queries that recompute them. Generated from a list of counted records (CountedRecords), so the
// triggers, the rebuild and the reads always agree on what a counter holds.

/** One counter: the rows of `table` that meet `where`, per value of `by`, with the sum of `sum`. */
export interface CountedRecords {
  /** Its name in record_counters (the table's name when it counts every row). */
  counter: string;
  table: string;
  /** Column splitting the count (status, type, currency); none: one count of the workspace. */
  by?: string;
  /** Integer column summed beside the count (a deal's amount_cents). */
  sum?: string;
  /** Condition over the row `r` (NEW, OLD, or the table's name in a rebuild); none: every row. */
  where?: (r: string) => string;
  /** Columns `where` reads: a change of one moves the row between counters. */
  watch?: readonly string[];
  /**
   * Counted only while its parent row meets a condition (a project task while its project is active): a
   * change of the parent moves all its children at once.
   */
  parent?: { table: string; key: string; where: (p: string) => string; watch: readonly string[] };
}

export type CounterDialect = 'sqlite' | 'postgres';

const dimension = (c: CountedRecords, r: string) => (c.by ? `coalesce(${r}.${c.by}, '')` : `''`);
const amount = (c: CountedRecords, r: string) => (c.sum ? `coalesce(${r}.${c.sum}, 0)` : '0');

/** The parent condition over child row `r`; on PostgreSQL it takes a share lock on the parent row. */
function parentHolds(c: CountedRecords, r: string, lock: boolean): string {
  const p = c.parent!;
  return `exists (select 1 from ${p.table} p where p.workspace_id = ${r}.workspace_id and p.id = ${r}.${p.key} and ${p.where('p')}${lock ? ' for share' : ''})`;
}

/** The full condition of row `r`, or null when every row counts. */
function condition(c: CountedRecords, r: string, lock = false): string | null {
  const parts = [c.where?.(r), c.parent ? parentHolds(c, r, lock) : undefined].filter(Boolean);
  return parts.length ? parts.map((p) => `(${p})`).join(' and ') : null;
}

/** Columns whose change can move a row between counters. */
function watched(c: CountedRecords): string[] {
  return [
    'workspace_id',
    ...(c.by ? [c.by] : []),
    ...(c.sum ? [c.sum] : []),
    ...(c.watch ?? []),
    ...(c.parent ? [c.parent.key] : []),
  ];
}

const changed = (columns: string[], distinct: string, o = 'old', n = 'new') =>
  columns.map((col) => `${o}.${col} ${distinct} ${n}.${col}`).join(' or ');

const truth = (expr: string) => `(case when ${expr} then 1 else 0 end)`;

const UPSERT_SQLITE =
  'on conflict (workspace_id, counter, dimension, slot) do update set n = n + excluded.n, amount = amount + excluded.amount';

/** SQLite has one writer at a time, so one slot (0) per counter is enough. */
function sqliteAdd(c: CountedRecords, r: 'new' | 'old', sign: 1 | -1): string {
  const where = condition(c, r) ?? 'true';
  return `insert into record_counters (workspace_id, counter, dimension, slot, n, amount)
    select ${r}.workspace_id, '${c.counter}', ${dimension(c, r)}, 0, ${sign}, ${sign} * ${amount(c, r)}
    where ${where} ${UPSERT_SQLITE};`;
}

function sqliteTriggers(c: CountedRecords): string[] {
  const name = `rc_${c.counter}`;
  const statements = [
    `create trigger ${name}_insert after insert on ${c.table} begin ${sqliteAdd(c, 'new', 1)} end`,
    `create trigger ${name}_delete after delete on ${c.table} begin ${sqliteAdd(c, 'old', -1)} end`,
    `create trigger ${name}_update after update of ${watched(c).join(', ')} on ${c.table}
      when ${changed(watched(c), 'is not')}
      begin ${sqliteAdd(c, 'old', -1)} ${sqliteAdd(c, 'new', 1)} end`,
  ];
  if (c.parent) {
    const p = c.parent;
    statements.push(`create trigger ${name}_parent after update of ${p.watch.join(', ')} on ${p.table}
      when ${truth(p.where('old'))} <> ${truth(p.where('new'))}
      begin
        insert into record_counters (workspace_id, counter, dimension, slot, n, amount)
        select workspace_id, '${c.counter}', ${dimension(c, c.table)}, 0,
          count(*) * (case when ${p.where('new')} then 1 else -1 end),
          coalesce(sum(${amount(c, c.table)}), 0) * (case when ${p.where('new')} then 1 else -1 end)
        from ${c.table} where workspace_id = new.workspace_id and ${p.key} = new.id ${c.where ? `and ${c.where(c.table)}` : ''}
        group by workspace_id${c.by ? `, ${c.by}` : ''} ${UPSERT_SQLITE};
      end`);
  }
  return statements;
}

/**
 * PostgreSQL: a write adds to any slot row of its counter that no other transaction holds (FOR UPDATE
 * SKIP LOCKED), or to a new slot row, and never waits for a counter lock: concurrent writers of one
 * workspace do not queue behind one hot row, and no two of them can deadlock on counters. A counter has as
 * many slots as it once had concurrent writers; reads sum them and a rebuild folds them back to one.
 */
const PG_ADD = `create or replace function rc_add(w text, c text, d text, dn bigint, da bigint) returns void
language plpgsql as $$
declare s integer;
begin
  select slot into s from record_counters
    where workspace_id = w and counter = c and dimension = d
    limit 1 for update skip locked;
  if found then
    update record_counters set n = n + dn, amount = amount + da
      where workspace_id = w and counter = c and dimension = d and slot = s;
  else
    insert into record_counters (workspace_id, counter, dimension, slot, n, amount)
      values (w, c, d, floor(random() * 2147483646)::integer + 1, dn, da)
      on conflict (workspace_id, counter, dimension, slot)
      do update set n = record_counters.n + excluded.n, amount = record_counters.amount + excluded.amount;
  end if;
end $$`;

/**
 * PostgreSQL: statement-level triggers over the transition tables, so a statement adds to each counter it
 * moves once (a bulk insert of 100,000 rows is one rc_add per status, not 100,000 updates of one row,
 * whose row versions a transaction cannot prune). An update counts only the rows whose watched columns
 * changed, so an edit of a title takes no counter lock.
 */
function pgTriggers(c: CountedRecords): string[] {
  const name = `rc_${c.counter}`;
  const side = (r: string, sign: string) =>
    `select ${r}.workspace_id as w, ${dimension(c, r)} as d, ${sign}1 as n, ${sign}${amount(c, r)} as a`;
  const only = (r: string) => {
    const cond = condition(c, r, true);
    return cond ? ` and ${cond}` : '';
  };
  const apply = (
    rows: string,
  ) => `for g in select w, d, sum(n)::bigint as n, sum(a)::bigint as a from (${rows}) x
      group by w, d having sum(n) <> 0 or sum(a) <> 0 order by w, d
    loop perform rc_add(g.w, '${c.counter}', g.d, g.n, g.a); end loop;`;
  // Aliases ro / rn: in PL/pgSQL, old and new would name the trigger's record variables.
  const pair = 'from old_rows ro join new_rows rn on rn.workspace_id = ro.workspace_id and rn.id = ro.id';
  const moved = `(${changed(watched(c), 'is distinct from', 'ro', 'rn')})`;
  const statements = [
    `create or replace function ${name}() returns trigger language plpgsql as $$
    declare g record;
    begin
      if tg_op = 'INSERT' then
        ${apply(`${side('rn', '')} from new_rows rn where true${only('rn')}`)}
      elsif tg_op = 'DELETE' then
        ${apply(`${side('ro', '-')} from old_rows ro where true${only('ro')}`)}
      else
        ${apply(`${side('ro', '-')} ${pair} where ${moved}${only('ro')}
          union all ${side('rn', '')} ${pair} where ${moved}${only('rn')}`)}
      end if;
      return null;
    end $$`,
    `create trigger ${name}_insert after insert on ${c.table} referencing new table as new_rows
      for each statement execute function ${name}()`,
    `create trigger ${name}_delete after delete on ${c.table} referencing old table as old_rows
      for each statement execute function ${name}()`,
    `create trigger ${name}_update after update on ${c.table} referencing old table as old_rows new table as new_rows
      for each statement execute function ${name}()`,
  ];
  if (c.parent) {
    const p = c.parent;
    statements.push(
      `create or replace function ${name}_parent() returns trigger language plpgsql as $$
      declare g record; dir integer := case when ${p.where('new')} then 1 else -1 end;
      begin
        for g in select ${dimension(c, c.table)} as d, count(*) as n, coalesce(sum(${amount(c, c.table)}), 0) as a
          from ${c.table} where workspace_id = new.workspace_id and ${p.key} = new.id ${c.where ? `and ${c.where(c.table)}` : ''}
          group by 1 order by 1
        loop
          perform rc_add(new.workspace_id, '${c.counter}', g.d, dir * g.n, dir * g.a);
        end loop;
        return null;
      end $$`,
      `create trigger ${name}_parent after update of ${p.watch.join(', ')} on ${p.table} for each row
        when (${truth(p.where('old'))} <> ${truth(p.where('new'))}) execute function ${name}_parent()`,
    );
  }
  return statements;
}

/** The statements that create the counters' triggers (and PostgreSQL's functions). */
export function counterTriggerSql(dialect: CounterDialect, counted: readonly CountedRecords[]): string[] {
  if (dialect === 'sqlite') return counted.flatMap(sqliteTriggers);
  return [PG_ADD, ...counted.flatMap(pgTriggers)];
}

/**
 * The query that counts one counter from its table, per workspace (or for one workspace): the columns of
 * record_counters in order, ready for insert ... select.
 */
export function counterRecountSql(c: CountedRecords, workspaceId?: string): RawBuilder<unknown> {
  const cond = condition(c, c.table);
  const filters = [
    ...(workspaceId === undefined ? [] : [sql`${sql.ref(`${c.table}.workspace_id`)} = ${workspaceId}`]),
    ...(cond ? [sql.raw(cond)] : []),
  ];
  const columns = `${c.table}.workspace_id as workspace_id, '${c.counter}' as counter, ${dimension(c, c.table)} as dimension, 0 as slot, count(*) as n, coalesce(sum(${amount(c, c.table)}), 0) as amount`;
  return sql`select ${sql.raw(columns)}
    from ${sql.table(c.table)} ${filters.length ? sql`where ${sql.join(filters, sql` and `)}` : sql``}
    group by ${sql.raw(`${c.table}.workspace_id${c.by ? `, ${c.table}.${c.by}` : ''}`)}`;
}
