// Filters of BI queries and datasets: a closed operator list, each value checked against its column's type
// and sent as a parameter; the column is always one of the dataset's governed columns.
import { type Expression, type RawBuilder, sql } from 'kysely';
import type { FieldError } from '../../../core/errors.ts';
import type { Dialect } from '../../../db/database.ts';
import type { Filter } from './query-definition.ts';
import type { BiColumn } from './templates.ts';

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

type Checked = { value: string | number } | { error: string };

/** One value as the column stores it: text, integer, 1/0 for booleans, ISO UTC text for instants. */
export function typedValue(column: BiColumn, value: unknown): Checked {
  switch (column.type) {
    case 'string':
      return typeof value === 'string' ? { value } : { error: 'must be text for this column' };
    case 'integer':
    case 'money':
      return Number.isSafeInteger(value)
        ? { value: value as number }
        : { error: `must be an integer${column.type === 'money' ? ' (cents)' : ''} for this column` };
    case 'boolean':
      return typeof value === 'boolean' ? { value: value ? 1 : 0 } : { error: 'must be true or false' };
    case 'timestamp':
      return typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value))
        ? { value: new Date(value).toISOString() }
        : { error: 'must be an ISO 8601 date-time' };
  }
}

const COMPARISONS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

export interface CheckedFilter {
  column: BiColumn;
  operator: Filter['operator'];
  values: (string | number)[];
}

/** Checks a filter against the dataset columns; errors name `${field}.column` or `${field}.value`. */
export function checkFilter(
  filter: Filter,
  columns: ReadonlyMap<string, BiColumn>,
  field: string,
  errors: FieldError[],
): CheckedFilter | undefined {
  const column = columns.get(filter.column);
  if (!column) {
    errors.push({ field: `${field}.column`, message: `is not a column of the dataset: ${filter.column}` });
    return undefined;
  }
  const { operator, value } = filter;
  const bad = (message: string) => {
    errors.push({ field: `${field}.value`, message });
    return undefined;
  };
  if (operator === 'is_null' || operator === 'is_not_null') {
    return value === undefined ? { column, operator, values: [] } : bad(`must be absent with ${operator}`);
  }
  if (value === undefined) return bad(`is required with ${operator}`);
  if ((operator === 'contains' || operator === 'starts_with') && column.type !== 'string') {
    return bad(`${operator} applies to text columns only`);
  }
  if (column.type === 'boolean' && operator !== 'eq' && operator !== 'neq') {
    return bad('a boolean column takes eq or neq');
  }
  const list = operator === 'in' || operator === 'not_in';
  if (list !== Array.isArray(value))
    return bad(list ? `must be a list with ${operator}` : 'must be one value');
  const values: (string | number)[] = [];
  for (const [i, item] of (Array.isArray(value) ? value : [value]).entries()) {
    const checked = typedValue(column, item);
    if ('error' in checked) return bad(list ? `item ${i} ${checked.error}` : checked.error);
    values.push(checked.value);
  }
  return { column, operator, values };
}

/** The condition of a checked filter over `expr` (the column in the query). */
export function filterCondition(
  dialect: Dialect,
  filter: CheckedFilter,
  expr: Expression<unknown>,
): RawBuilder<boolean> {
  const [first] = filter.values;
  switch (filter.operator) {
    case 'is_null':
      return sql`${expr} is null`;
    case 'is_not_null':
      return sql`${expr} is not null`;
    case 'in':
      return sql`${expr} in (${sql.join(filter.values)})`;
    case 'not_in':
      return sql`${expr} not in (${sql.join(filter.values)})`;
    case 'contains':
      // Case-sensitive on both databases (LIKE is not: SQLite folds ASCII case, PostgreSQL does not).
      return dialect === 'postgres' ? sql`strpos(${expr}, ${first}) > 0` : sql`instr(${expr}, ${first}) > 0`;
    case 'starts_with':
      return sql`substr(${expr}, 1, ${[...String(first)].length}) = ${first}`;
    default:
      return sql`${expr} ${sql.raw(COMPARISONS[filter.operator])} ${first}`;
  }
}
