import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { validationFailed } from './errors.ts';
import {
  DEFAULT_PAGE_SIZE,
  decodeCursor,
  encodeCursor,
  MAX_PAGE_SIZE,
  type Page,
  type PageRequest,
} from './pagination.ts';

/** One column of a keyset order. Every column must be NOT NULL; the last one must be unique (the id). */
export interface KeysetColumn {
  column: string;
  direction: 'asc' | 'desc';
}

/**
 * Keyset pagination over a multi-column order (position then id, version key then id): the cursor holds
 * the last row's values and the next page starts strictly after them. Never OFFSET.
 */
export async function fetchKeysetPage<R extends Record<string, unknown>>(
  query: SelectQueryBuilder<any, any, R>,
  request: PageRequest,
  order: KeysetColumn[],
): Promise<Page<R>> {
  const limit = Math.min(request.limit ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  let q = query;
  if (request.cursor) {
    const values = parseKey(decodeCursor(request.operation, request.filters, request.cursor), order.length);
    q = q.where((eb) => after(eb, order, values));
  }
  for (const { column, direction } of order) q = q.orderBy(column as any, direction);
  const rows = await q.limit(limit + 1).execute();
  const items = rows.slice(0, limit);
  if (rows.length <= limit) return { items };
  const last = items[items.length - 1]!;
  const key = JSON.stringify(order.map(({ column }) => last[column.split('.').pop()!]));
  return { items, next_cursor: encodeCursor(request.operation, request.filters, key) };
}

function parseKey(key: string, length: number): unknown[] {
  try {
    const values = JSON.parse(key);
    if (Array.isArray(values) && values.length === length) return values;
  } catch {
    // falls through to the validation error
  }
  throw validationFailed([{ field: 'cursor', message: 'is not a cursor this service issued' }]);
}

/** (c1, c2, ...) strictly after (v1, v2, ...) in the given directions, written as OR of prefixes. */
function after(eb: ExpressionBuilder<any, any>, order: KeysetColumn[], values: unknown[]) {
  const branches = order.map((current, i) =>
    eb.and([
      ...order.slice(0, i).map(({ column }, j) => eb(sql.ref(column), '=', values[j])),
      eb(sql.ref(current.column), current.direction === 'asc' ? '>' : '<', values[i]),
    ]),
  );
  return eb.or(branches);
}
