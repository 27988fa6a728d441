import { validationFailed } from './errors.ts';

/** True when a database error is a unique-constraint violation (PostgreSQL 23505, SQLite CONSTRAINT_UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * Runs a write whose unique constraint may lose a race against a concurrent one: the violation becomes the
 * same validation_failed on `field` that the pre-check reports.
 */
export async function uniquely<T>(write: () => Promise<T>, field: string, message: string): Promise<T> {
  try {
    return await write();
  } catch (thrown) {
    if (isUniqueViolation(thrown)) throw validationFailed([{ field, message }]);
    throw thrown;
  }
}
