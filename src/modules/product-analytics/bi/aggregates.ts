// Which aggregate applies to which column type, and what type its result has: shared by query measures and
// metric expressions so both accept exactly the same things.
import type { Aggregate } from './query-definition.ts';
import type { BiColumn, ColumnType } from './templates.ts';

export type OutputType = ColumnType | 'number';

/** Why `fn` cannot aggregate `column`, or undefined when it can. */
export function aggregateAllowed(fn: Aggregate, column: BiColumn): string | undefined {
  const numeric = column.type === 'integer' || column.type === 'money' || column.type === 'boolean';
  if ((fn === 'sum' || fn === 'avg') && !numeric) {
    return `${fn} needs an integer, money or boolean column; ${column.name} is ${column.type}`;
  }
  if ((fn === 'min' || fn === 'max') && column.type === 'boolean') {
    return `${fn} does not apply to the boolean column ${column.name}; use sum or avg`;
  }
  return undefined;
}

/** The type of an aggregate's result (a sum of booleans counts them). */
export function aggregateType(fn: Aggregate, column: BiColumn | undefined): OutputType {
  if (fn === 'count' || fn === 'count_distinct') return 'integer';
  if (fn === 'avg') return 'number';
  if (!column) return 'integer';
  if (column.type === 'boolean') return 'integer';
  return column.type;
}
