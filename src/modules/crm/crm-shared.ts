// Schemas and helpers shared by the CRM and ledger resources.
import { type TUnsafe, Type } from '@sinclair/typebox';
import { validationFailed } from '../../core/errors.ts';
import { FreeFields } from '../../core/schema.ts';

export type FieldValue = string | number | boolean | null;
export type Fields = Record<string, FieldValue>;

/**
 * An enum of strings as a JSON Schema `enum` (validation names the allowed values), statically typed as the
 * union of its values.
 */
export function oneOf<T extends string>(
  values: readonly T[],
  options: { description?: string } = {},
): TUnsafe<T> {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], ...options });
}

export const currencyInput = (description = 'ISO 4217 code in upper case, e.g. USD (default USD).') =>
  Type.String({ pattern: '^[A-Z]{3}$', description });

/** Money in the smallest currency unit; capped so every sum stays an exact JS number. */
export const centsInput = (minimum: number, description: string) =>
  Type.Integer({ minimum, maximum: 1_000_000_000_000_000, description });

export const customFieldsInput = (what: string) =>
  FreeFields(`User-defined fields of the ${what}: string, number, boolean or null values.`);

export const idInput = (description: string) => Type.String({ minLength: 1, maxLength: 255, description });

export function parseFields(json: string): Fields {
  return JSON.parse(json) as Fields;
}

/** Stored custom fields of a new record: null values carry nothing and are dropped. */
export function newFields(input: Fields | undefined): Fields {
  return Object.fromEntries(Object.entries(input ?? {}).filter(([, value]) => value !== null));
}

/** A unique-constraint violation from SQLite or PostgreSQL (23505). */
export function isUniqueViolation(thrown: unknown): boolean {
  const code = (thrown as { code?: unknown })?.code;
  return code === '23505' || (typeof code === 'string' && code.startsWith('SQLITE_CONSTRAINT_UNIQUE'));
}

/**
 * Runs an insert whose unique constraint may lose a race against a concurrent write: the violation becomes
 * the same validation_failed the pre-check reports.
 */
export async function uniquely<T>(write: () => Promise<T>, field: string, message: string): Promise<T> {
  try {
    return await write();
  } catch (thrown) {
    if (isUniqueViolation(thrown)) throw validationFailed([{ field, message }]);
    throw thrown;
  }
}
