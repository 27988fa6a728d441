// Free-text `query` search over a table's searchable columns (a declared record's, or search-tables.ts): a
// case-insensitive substring match, newest first (or the list's own keyset order), with working cursors.
// A term of three letters or digits reads the trigram index (src/core/search-index.ts); the rows a request
// reads stay bounded whatever the size of the workspace:
// - on SQLite, a term matching fewer than PROBE_CAP rows (all workspaces; FTS5 counts them cheaply) reads
//   those rows through the index;
// - otherwise, and always on PostgreSQL (whose GIN bitmap gathers every match of a common term before a
//   LIMIT, so counting costs more than either path), it scans the next SCAN_FIRST rows of the list in page
//   order (a common term fills the page there), and only when they hold less than a page reads the older
//   matches through the index.
// Shorter terms cannot use trigrams: they scan the list in page order (declared heavy, pagination.ts).
import { type Expression, type Kysely, type SelectQueryBuilder, type SqlBool, sql } from 'kysely';
import { isPostgres } from '../db/dialect.ts';
import {
  afterCursor,
  fetchKeysetPage,
  inKeysetOrder,
  type KeysetColumn,
  keyAfter,
  keyOf,
  matchesText,
  type Page,
  type PageRequest,
  pageLimit,
  pageOf,
} from './pagination.ts';
import { searchTableName } from './search-index.ts';
import { isIndexedTerm, SEARCHABLE, type SearchableTable, type SearchTarget } from './search-tables.ts';

/** On SQLite, up to this many matches are read through the index as they are (and sorted). */
export const PROBE_CAP = 2_000;
/** A common term first scans this many rows of the list: a page is almost always among them. */
export const SCAN_FIRST = 2_000;

const ID_ORDER: KeysetColumn[] = [{ column: 'id', direction: 'desc', type: 'string' }];

/** A phrase of the FTS5 query syntax, restricted to the columns: the trigram tokenizer makes it a substring. */
function ftsQuery(columns: readonly string[], text: string): string {
  return `{${columns.join(' ')}} : "${text.replaceAll('"', '""')}"`;
}

/** SQLite: how many rows of the table (every workspace) match, counting up to `cap`; reads the FTS index only. */
async function countFtsMatches(db: Kysely<any>, { table, columns }: Searched, text: string, cap: number) {
  const fts = sql.table(searchTableName(table));
  const counted = sql<{ n: number }>`select count(*) as n from (select 1 from ${fts}
    where ${fts} match ${ftsQuery(columns, text)} limit ${cap})`;
  return Number((await counted.execute(db)).rows[0]?.n ?? 0);
}

/**
 * The rows of `table` matching, found through the index only, as `id IN (...)`: the planner then seeks the
 * (workspace_id, id) key for each match. A plainer form lets it walk the whole workspace in page order
 * instead, testing each row, which reads every row for a rare term: on SQLite `rowid IN (FTS matches)`
 * does so when it has no statistics; on PostgreSQL the GIN scan loses to the key walk when the term looks
 * common. So on SQLite the FTS table drives the join to the rows (CROSS JOIN keeps that order); on
 * PostgreSQL the GIN index's matches are gathered first (ARRAY(...) runs once).
 */
function indexedMatch(
  db: Kysely<any>,
  { table, columns }: Searched,
  workspaceId: string,
  text: string,
): Expression<SqlBool> {
  const id = sql.ref(`${table}.id`);
  if (isPostgres(db)) {
    const matches = matchesText(columns, text);
    // No workspace filter inside: the GIN index is then the only way to these rows (the key of the
    // workspace would be the planner's other choice, and reads all of it); the outer query filters.
    const ids = db
      .selectFrom(table)
      .select('id')
      .where((eb) => matches(eb));
    return sql<SqlBool>`${id} = any(array(${ids}))`;
  }
  const fts = sql.table(searchTableName(table));
  return sql<SqlBool>`${id} in (select m.id from ${fts} cross join ${sql.table(table)} as m on m.rowid = ${fts}.rowid where ${fts} match ${ftsQuery(columns, text)} and m.workspace_id = ${workspaceId})`;
}

export type TextSearch = {
  workspaceId: string;
  /** The list's query filter; none (or empty): the plain keyset page. */
  text: string | undefined;
} & ({ record: SearchTarget } | { table: SearchableTable });

interface Searched {
  table: string;
  columns: readonly string[];
}

const searched = (search: TextSearch): Searched =>
  'record' in search
    ? { table: search.record.table, columns: search.record.searchColumns }
    : { table: search.table, columns: SEARCHABLE[search.table] };

/**
 * One page of `query` (a list of `search.table` with its other filters, not yet ordered or paged) narrowed
 * to the rows matching `search.text`, in the keyset `order` (default: newest first by ID); without a text,
 * the plain keyset page in the same order, so every list store makes one call whether it searches or not.
 */
export async function fetchSearchPage<R extends Record<string, unknown>>(
  db: Kysely<any>,
  query: SelectQueryBuilder<any, any, R>,
  request: PageRequest,
  search: TextSearch,
  order: KeysetColumn[] = ID_ORDER,
): Promise<Page<R>> {
  const { workspaceId, text } = search;
  if (!text) return fetchKeysetPage(query, request, order);
  const target = searched(search);
  const scan = matchesText(target.columns, text);
  if (!isIndexedTerm(text)) return fetchKeysetPage(query.where(scan), request, order);
  if (!isPostgres(db) && (await countFtsMatches(db, target, text, PROBE_CAP)) < PROBE_CAP) {
    return fetchKeysetPage(query.where(indexedMatch(db, target, workspaceId, text)), request, order);
  }
  const rest = afterCursor(query, request, order);
  const columns = order.map(({ column }) => column);
  const boundary = await inKeysetOrder(rest.clearSelect().select(columns as any), order)
    .offset(SCAN_FIRST - 1)
    .limit(1)
    .executeTakeFirst();
  const limit = pageLimit(request);
  if (!boundary)
    return pageOf(
      await inKeysetOrder(rest.where(scan), order)
        .limit(limit + 1)
        .execute(),
      request,
      order,
    );
  const key = keyOf(boundary as Record<string, unknown>, order);
  const recent = await inKeysetOrder(rest.where(scan), order)
    .where((eb) => eb.not(keyAfter(eb, order, key)))
    .limit(limit + 1)
    .execute();
  if (recent.length > limit) return pageOf(recent, request, order);
  const older = await inKeysetOrder(rest.where(indexedMatch(db, target, workspaceId, text)), order)
    .where((eb) => keyAfter(eb, order, key))
    .limit(limit + 1 - recent.length)
    .execute();
  return pageOf([...recent, ...older], request, order);
}
