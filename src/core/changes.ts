// The one style of partial update: a PATCH sends at least one field (requireSomeField); the fields it
// sends whose value differs from the row are the changes to write and the audit's changed_fields
// (diffFields); sending the current values changes nothing. Creates audit the fields they were sent
// (inputFields). None of them ever names a control field.
import { validationFailed } from './errors.ts';

/** Inputs that steer a call rather than describe the record: never recorded as changed fields. */
const CONTROL_FIELDS: ReadonlySet<string> = new Set(['idempotency_key', 'dry_run']);

/** Field names for an audit event: the given names without control fields (the pipeline applies it to all). */
export function recordedFields(names: readonly string[]): string[] {
  return names.filter((name) => !CONTROL_FIELDS.has(name));
}

/** The fields a create was sent, for its audit event. */
export function inputFields(input: object): string[] {
  return recordedFields(
    Object.entries(input)
      .filter(([, value]) => value !== undefined)
      .map(([key]) => key),
  );
}

/** A PATCH that sends none of the fields it can change is validation_failed on the body. */
export function requireSomeField(input: object, fields: readonly string[]): void {
  const sent = input as Record<string, unknown>;
  if (!fields.some((field) => sent[field] !== undefined)) {
    throw validationFailed([{ field: '(body)', message: `send at least one of ${fields.join(', ')}` }]);
  }
}

/**
 * The columns an update really changes: of the given fields, those sent (not undefined) whose value differs
 * from the row's. `proposed` holds values as stored (a JSON column as its text: see mergedJson).
 */
export function diffFields<Row extends object>(
  row: Row,
  proposed: object,
  fields: readonly (keyof Row & string)[],
): { changes: Partial<Row>; changed: string[] } {
  const changes: Partial<Row> = {};
  const changed: string[] = [];
  for (const field of fields) {
    const value = (proposed as Record<string, unknown>)[field];
    if (value === undefined || value === (row as Record<string, unknown>)[field]) continue;
    (changes as Record<string, unknown>)[field] = value;
    changed.push(field);
  }
  return { changes, changed };
}

/** Merges a patch into a map key by key; a null value removes its key. */
export function mergeFields<V>(
  current: Record<string, V>,
  patch: Record<string, V | null>,
): Record<string, V> {
  const merged: Record<string, V> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged;
}

/** A new record's map: a null value carries nothing and is dropped (as a patch's null removes its key). */
export function withoutNulls<V>(map: Record<string, V | null> | undefined): Record<string, V> {
  return mergeFields({}, map ?? {});
}

/**
 * A JSON object column after a patch merged key by key (null removes a key), as stored text; undefined when
 * no patch was sent. A patch that changes nothing gives the stored text back, so diffFields sees no change.
 */
export function mergedJson(
  stored: string,
  patch: Record<string, unknown> | null | undefined,
): string | undefined {
  if (patch === undefined || patch === null) return undefined;
  return JSON.stringify(mergeFields(JSON.parse(stored) as Record<string, unknown>, patch));
}
