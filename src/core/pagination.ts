import { Type } from '@sinclair/typebox';
import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { canonicalJson, sha256Hex } from './canonical-json.ts';
import { validationFailed } from './errors.ts';

export const DEFAULT_PAGE_SIZE = 25;
export const MAX_PAGE_SIZE = 100;

export const pageInput = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Page size, 1 to 100 (default 25).' }),
  ),
  cursor: Type.Optional(
    Type.String({ minLength: 1, description: 'The next_cursor of the previous page, sent with the same filters.' }),
  ),
};

interface CursorPayload {
  o: string;
  f: string;
  k: string;
}

function filterHash(operation: string, filters: Record<string, unknown>): string {
  return sha256Hex(operation + canonicalJson(filters)).slice(0, 16);
}

export function encodeCursor(operation: string, filters: Record<string, unknown>, key: string): string {
  const payload: CursorPayload = { o: operation, f: filterHash(operation, filters), k: key };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

/** The key after which the page starts; a cursor from another endpoint or other filters is rejected. */
export function decodeCursor(operation: string, filters: Record<string, unknown>, cursor: string): string {
  let payload: CursorPayload;
  try {
    payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorPayload;
  } catch {
    throw validationFailed([{ field: 'cursor', message: 'is not a cursor this service issued' }]);
  }
  if (typeof payload?.k !== 'string' || payload.o !== operation) {
    throw validationFailed([{ field: 'cursor', message: 'was issued by another endpoint' }]);
  }
  if (payload.f !== filterHash(operation, filters)) {
    throw validationFailed([{ field: 'cursor', message: 'was issued for other filters; send the same filters' }]);
  }
  return payload.k;
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

/**
 * Keyset pagination, newest first, over a time-ordered ID column: WHERE id < last ORDER BY id DESC.
 * Fetches one row more than asked to know whether another page exists.
 */
export async function fetchPage<R extends { id: string }>(
  query: SelectQueryBuilder<any, any, R>,
  request: PageRequest,
  idColumn = 'id',
): Promise<Page<R>> {
  const limit = Math.min(request.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  let q = query;
  if (request.cursor) q = q.where(idColumn, '<', decodeCursor(request.operation, request.filters, request.cursor));
  const rows = await q.orderBy(idColumn, 'desc').limit(limit + 1).execute();
  const items = rows.slice(0, limit);
  const more = rows.length > limit;
  return more
    ? { items, next_cursor: encodeCursor(request.operation, request.filters, items[items.length - 1].id) }
    : { items };
}

export function pageRequest(operation: string, input: Record<string, unknown>): PageRequest {
  const { limit, cursor, ...filters } = input;
  return { operation, filters, limit: limit as number | undefined, cursor: cursor as string | undefined };
}

/** A LIKE pattern matching `text` anywhere, with its wildcards escaped (use with ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Case-insensitive "contains" over several columns, for the `query` input of search and list tools. */
export function matchesText(columns: string[], text: string) {
  const pattern = containsPattern(text);
  return (eb: ExpressionBuilder<any, any>) =>
    eb.or(columns.map((column) => sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`));
}

/** A list response body: the plural key, plus next_cursor only when another page exists. */
export function listBody<T>(key: string, page: Page<T>): Record<string, unknown> {
  return page.next_cursor ? { [key]: page.items, next_cursor: page.next_cursor } : { [key]: page.items };
}
