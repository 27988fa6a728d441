// Metadata filters (search and delete): every condition must hold. Evaluated in JS over the parsed
// metadata, by exact search, by the approximate index's filter callback and by delete-by-filter alike.
import type { Filter, Metadata } from './vector-schemas.ts';

type Scalar = string | number | boolean;
type Condition = Filter[string];

function equals(value: Metadata[string] | undefined, wanted: Scalar): boolean {
  if (Array.isArray(value)) return typeof wanted === 'string' && value.includes(wanted);
  return value === wanted;
}

function holds(value: Metadata[string] | undefined, condition: Condition): boolean {
  if (typeof condition !== 'object') return equals(value, condition);
  if ('in' in condition) return condition.in.some((wanted) => equals(value, wanted));
  if (typeof value !== 'number') return false;
  const range = condition as { gt?: number; gte?: number; lt?: number; lte?: number };
  return (
    (range.gt === undefined || value > range.gt) &&
    (range.gte === undefined || value >= range.gte) &&
    (range.lt === undefined || value < range.lt) &&
    (range.lte === undefined || value <= range.lte)
  );
}

/** A predicate over metadata; undefined when the filter is absent or empty (everything matches). */
export function metadataMatcher(filter: Filter | undefined): ((metadata: Metadata) => boolean) | undefined {
  const entries = Object.entries(filter ?? {});
  if (entries.length === 0) return undefined;
  return (metadata) => entries.every(([field, condition]) => holds(metadata[field], condition));
}
