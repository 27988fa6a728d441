import { fail, validationFailed } from './errors.ts';

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

/**
 * True for a failure that says nothing about the call itself, only about its timing against other writes:
 * PostgreSQL's deadlock_detected (40P01), serialization_failure (40001) and lock_not_available (55P03), and
 * SQLite still busy after its timeout. The transaction was rolled back whole, so running it again is safe.
 */
export function isTransientConflict(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return code === '40P01' || code === '40001' || code === '55P03' || code.startsWith('SQLITE_BUSY');
}

/** Attempts of a write transaction that loses to concurrent writes: the first and two retries. */
export const CONFLICT_ATTEMPTS = 3;

/**
 * Runs a transaction again while it fails with a transient conflict, at most CONFLICT_ATTEMPTS times in
 * all, after a short random pause (so the colliding writers do not meet again); then answers
 * write_conflict. SQLite busy answers it at once: its busy timeout has already waited, with the one
 * connection (and so the event loop) held, and another wait would hold it again. `attempt` must start from
 * scratch each time: nothing of a failed attempt survives it.
 */
export async function retryConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (thrown) {
      if (!isTransientConflict(thrown)) throw thrown;
      const busy = String((thrown as { code: string }).code).startsWith('SQLITE_BUSY');
      if (busy || tries >= CONFLICT_ATTEMPTS) throw fail('write_conflict', { retry_after_seconds: 1 });
      await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20 * tries));
    }
  }
}
