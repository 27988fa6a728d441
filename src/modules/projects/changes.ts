import { type TSchema, Type } from '@sinclair/typebox';

/** A field an update may clear: the value, or null. */
export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description ? { description } : {});

/**
 * The columns an update really changes: fields sent (not undefined) whose value differs from the row.
 * Returns the changes to write and their names, for the audit event.
 */
export function diffFields<Row extends object>(
  row: Row,
  input: Record<string, unknown>,
  fields: readonly (keyof Row & string)[],
): { changes: Partial<Row>; changed: string[] } {
  const changes: Partial<Row> = {};
  const changed: string[] = [];
  for (const field of fields) {
    const value = input[field];
    if (value === undefined || value === (row as Record<string, unknown>)[field]) continue;
    (changes as Record<string, unknown>)[field] = value;
    changed.push(field);
  }
  return { changes, changed };
}

/** Input field names for an audit event: never the idempotency key or the dry-run flag. */
export function inputFields(input: Record<string, unknown>): string[] {
  return Object.keys(input).filter((key) => key !== 'idempotency_key' && key !== 'dry_run');
}
