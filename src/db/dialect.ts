// Which database a Kysely instance talks to, for the few places where SQL differs (partitions, trigram
// indexes, triggers, session settings). Everything else is written once for both.
import { type Kysely, PostgresAdapter } from 'kysely';

export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
