// app_events' month partitions through the shared helpers (src/db/month-partitions.ts). This file stays
// because the released migration 0011 imports these names from it.
import type { Kysely } from 'kysely';
import { ensureMonthPartitions as ensure, isPostgres } from '../../db/month-partitions.ts';

export { isPostgres };

/** Creates the app_events partitions of the months from `from` to `to` (inclusive) that do not exist. */
export function ensureMonthPartitions(db: Kysely<any>, from: Date, to: Date): Promise<string[]> {
  return ensure(db, 'app_events', from, to);
}
