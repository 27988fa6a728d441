import { Type } from '@sinclair/typebox';
import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { canonicalJson, sha256Hex } from './canonical-json.ts';
import { validationFailed } from './errors.ts';
import { isIndexedTerm } from './search-tables.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export const pageInput = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Page size, 1 to 100 (default 25).' }),
  ),
  cursor: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'The next_cursor of the previous page, sent with the same filters.',
    }),
  ),
};

/**
 * The type of one value of a cursor's key: text, a SQL integer (32-bit, as PostgreSQL's integer), or an
 * ISO 8601 UTC instant as toISOString() writes it. A cursor is base64url JSON anyone can forge, so its key
 * is checked against the endpoint's shape before it reaches SQL.
 */
export type KeyPart = 'string' | 'integer' | 'date-time';
export type CursorKey = (string | number)[];

interface CursorPayload {
  o: string;
  f: string;
  k: unknown;
}

const INT32_LIMIT = 2 ** 31;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function partMatches(value: unknown, part: KeyPart): boolean {
  switch (part) {
    case 'string':
      return typeof value === 'string' && !value.includes('\u0000');
    case 'integer':
      return Number.isInteger(value) && (value as number) >= -INT32_LIMIT && (value as number) < INT32_LIMIT;
    case 'date-time':
      return typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value));
  }
}

function filterHash(operation: string, filters: Record<string, unknown>): string {
  return sha256Hex(operation + canonicalJson(filters)).slice(0, 16);
}

export function encodeCursor(operation: string, filters: Record<string, unknown>, key: CursorKey): string {
  const payload: CursorPayload = { o: operation, f: filterHash(operation, filters), k: key };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

const notIssued = () =>
  validationFailed([{ field: 'cursor', message: 'is not a cursor this service issued' }]);

/**
 * The key after which the page starts, checked against `shape` (one KeyPart per keyset column); a cursor
 * from another endpoint or other filters, or whose key has another shape, is validation_failed on cursor.
 */
export function decodeCursor(
  operation: string,
  filters: Record<string, unknown>,
  cursor: string,
  shape: readonly KeyPart[],
): CursorKey {
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw notIssued();
  }
  if (typeof payload !== 'object' || payload === null) throw notIssued();
  if (payload.o !== operation) {
    throw validationFailed([{ field: 'cursor', message: 'was issued by another endpoint' }]);
  }
  if (payload.f !== filterHash(operation, filters)) {
    throw validationFailed([
      { field: 'cursor', message: 'was issued for other filters; send the same filters' },
    ]);
  }
  const key = payload.k;
  if (
    !Array.isArray(key) ||
    key.length !== shape.length ||
    !shape.every((part, i) => partMatches(key[i], part))
  ) {
    throw notIssued();
  }
  return key as CursorKey;
}

export interface PageRequest {
  operation: string;
  /** Every input except limit and cursor: a cursor is only valid with the same ones. */
  filters: Record<string, unknown>;
  limit?: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  next_cursor?: string;
}

/** Keyset pagination, newest first, over a time-ordered ID column: WHERE id < last ORDER BY id DESC. */
export function fetchPage<R extends { id: string }>(
  query: SelectQueryBuilder<any, any, R>,
  request: PageRequest,
  idColumn = 'id',
): Promise<Page<R>> {
  return fetchKeysetPage(query, request, [{ column: idColumn, direction: 'desc', type: 'string' }]);
}

/** One column of a keyset order. Every column must be NOT NULL; the last one must be unique (the id). */
export interface KeysetColumn {
  column: string;
  direction: 'asc' | 'desc';
  type: KeyPart;
}

/**
 * Keyset pagination over an order of one or more columns (id; position then id; version key then id): the
 * cursor holds the last row's values and the next page starts strictly after them. Never OFFSET. Fetches
 * one row more than asked to know whether another page exists.
 */
export async function fetchKeysetPage<R extends Record<string, unknown>>(
  query: SelectQueryBuilder<any, any, R>,
  request: PageRequest,
  order: KeysetColumn[],
): Promise<Page<R>> {
  const limit = pageLimit(request);
  const rows = await inKeysetOrder(afterCursor(query, request, order), order)
    .limit(limit + 1)
    .execute();
  return pageOf(rows, request, order);
}

export const pageLimit = (request: PageRequest): number =>
  Math.min(request.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);

/** The query narrowed to the rows after the request's cursor, if it has one. */
export function afterCursor<Q extends SelectQueryBuilder<any, any, any>>(
  query: Q,
  request: PageRequest,
  order: KeysetColumn[],
): Q {
  if (!request.cursor) return query;
  const shape = order.map(({ type }) => type);
  const values = decodeCursor(request.operation, request.filters, request.cursor, shape);
  return query.where((eb) => keyAfter(eb, order, values)) as Q;
}

export function inKeysetOrder<Q extends SelectQueryBuilder<any, any, any>>(
  query: Q,
  order: KeysetColumn[],
): Q {
  let q = query;
  for (const { column, direction } of order) q = q.orderBy(column as any, direction) as Q;
  return q;
}

/** One page of `rows` (fetched in keyset order, up to one more than the page size). */
export function pageOf<R extends Record<string, unknown>>(
  rows: R[],
  request: PageRequest,
  order: KeysetColumn[],
): Page<R> {
  const limit = pageLimit(request);
  const items = rows.slice(0, limit);
  if (rows.length <= limit) return { items };
  return {
    items,
    next_cursor: encodeCursor(request.operation, request.filters, keyOf(items[limit - 1]!, order)),
  };
}

/** The keyset values of a row, in the order's columns. */
export const keyOf = (row: Record<string, unknown>, order: KeysetColumn[]): CursorKey =>
  order.map(({ column }) => row[column.split('.').pop()!] as string | number);

/** (c1, c2, ...) strictly after (v1, v2, ...) in the given directions, written as OR of prefixes. */
export function keyAfter(eb: ExpressionBuilder<any, any>, order: KeysetColumn[], values: unknown[]) {
  const branches = order.map((current, i) =>
    eb.and([
      ...order.slice(0, i).map(({ column }, j) => eb(sql.ref(column), '=', values[j])),
      eb(sql.ref(current.column), current.direction === 'asc' ? '>' : '<', values[i]),
    ]),
  );
  return eb.or(branches);
}

export function pageRequest(operation: string, input: Record<string, unknown>): PageRequest {
  const { limit, cursor, ...filters } = input;
  return { operation, filters, limit: limit as number | undefined, cursor: cursor as string | undefined };
}

/** A LIKE pattern matching `text` anywhere, with its wildcards escaped (use with ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * Case-insensitive "contains" over several columns, by a scan: what the trigram index answers for a term
 * of three letters or digits, and how shorter terms are matched (src/core/search.ts).
 */
export function matchesText(columns: readonly string[], text: string) {
  const pattern = containsPattern(text);
  return (eb: ExpressionBuilder<any, any>) =>
    eb.or(
      columns.map(
        (column) => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`,
      ),
    );
}

/**
 * `heavy` for a list with a text `query` the trigram index cannot serve (fewer than three letters or digits
 * in a row): that scan reads up to every row the workspace has in the table (docs/contract.md, section 17).
 * Indexed terms read a bounded number of rows (src/core/search.ts) and stay on the shared connections.
 */
export const hasTextQuery = (input: { query?: string }): boolean =>
  Boolean(input.query) && !isIndexedTerm(input.query!);

/**
 * `heavy` for a list over a table that grows with the business (docs/contract.md, section 17): heavy when
 * its text query is too short for the index (hasTextQuery), when it sets a filter no index serves (`scans`:
 * the page walks the workspace's rows and checks each), or when it sets two or more `indexed` filters (one
 * index serves one of them; the rest are checked row by row, so a rare combination reads all of its rows).
 */
export function heavyFilters(filters: { indexed?: readonly string[]; scans?: readonly string[] }) {
  const { indexed = [], scans = [] } = filters;
  const set = (input: Record<string, unknown>, name: string) => input[name] !== undefined;
  return (input: Record<string, unknown>): boolean =>
    hasTextQuery(input as { query?: string }) ||
    scans.some((name) => set(input, name)) ||
    indexed.filter((name) => set(input, name)).length > 1;
}

/** A list response body: the plural key, plus next_cursor only when another page exists. */
export function listBody<T>(key: string, page: Page<T>): Record<string, unknown> {
  return page.next_cursor ? { [key]: page.items, next_cursor: page.next_cursor } : { [key]: page.items };
}
