import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { ModuleDefinition } from '../core/module.ts';
import { moduleList } from '../modules/module-list.ts';
import { isPostgres } from './dialect.ts';
import * as platform from './migrations/0001-platform.ts';
import * as crmTasksActivity from './migrations/0002-crm-tasks-activity.ts';
import * as supportCmsAssets from './migrations/0004-support-cms-assets.ts';
import * as integrationsNotifications from './migrations/0005-integrations-notifications.ts';
import * as projectsProductsCalendar from './migrations/0006-projects-products-calendar.ts';
import * as rateLimits from './migrations/0007-rate-limits.ts';
import * as outboxRelay from './migrations/0009-outbox-relay.ts';
import * as runs from './migrations/0010-runs.ts';
import * as searchIndex from './migrations/0012-search-index.ts';
import * as recordCounters from './migrations/0013-record-counters.ts';
import * as retention from './migrations/0014-retention.ts';
import * as outboxFailures from './migrations/0028-outbox-failures.ts';
import * as mcpSessions from './migrations/0030-mcp-sessions.ts';

// The platform's migrations, and the history written before modules declared their own: these span
// several modules, and installations recorded their names, so they stay here under those names. A
// migration of one module lives in its folder and is listed in its definition (crm: 0003, assets: 0008).
const platformMigrations: Record<string, Migration> = {
  '0001-platform': platform,
  '0002-crm-tasks-activity': crmTasksActivity,
  '0004-support-cms-assets': supportCmsAssets,
  '0005-integrations-notifications': integrationsNotifications,
  '0006-projects-products-calendar': projectsProductsCalendar,
  '0007-rate-limits': rateLimits,
  '0009-outbox-relay': outboxRelay,
  '0010-runs': runs,
  '0012-search-index': searchIndex,
  '0013-record-counters': recordCounters,
  '0014-retention': retention,
  '0028-outbox-failures': outboxFailures,
  '0030-mcp-sessions': mcpSessions,
};

const NAME = /^(\d{4})-[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * Every migration, the platform's and each module's: run in the order of their names, so a name is
 * `NNNN-<what>` with a number no other migration uses (the next free one of the whole tree). Kysely
 * refuses to run when a recorded migration is missing or a new one sorts before one already run, so a
 * migration is never renamed or renumbered once released.
 */
export function collectMigrations(
  modules: readonly ModuleDefinition[] = moduleList,
): Record<string, Migration> {
  const all: Record<string, Migration> = {};
  const numbers = new Map<string, string>();
  const sources: [string, Record<string, Migration>][] = [
    ['the platform', platformMigrations],
    ...modules.map((m): [string, Record<string, Migration>] => [`module ${m.name}`, m.migrations ?? {}]),
  ];
  for (const [source, migrations] of sources) {
    for (const [name, migration] of Object.entries(migrations)) {
      const number = NAME.exec(name)?.[1];
      if (!number)
        throw new Error(`Migration ${name} of ${source}: the name must be NNNN-<what>, in kebab-case`);
      const taken = numbers.get(number);
      if (taken) throw new Error(`Migrations ${taken} and ${name} (${source}) share the number ${number}`);
      numbers.set(number, name);
      all[name] = migration;
    }
  }
  return all;
}

/**
 * Applies pending migrations. On PostgreSQL with a configured schema, Kysely's own bookkeeping tables live in
 * that schema too: its existence check looks across schemas, so another schema's tables would be mistaken
 * for ours.
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<string[]> {
  const migrations = collectMigrations();
  const provider: MigrationProvider = { getMigrations: async () => migrations };
  const postgres = isPostgres(db);
  // On PostgreSQL the pool's sessions carry the API's statement_timeout (WOS_STATEMENT_TIMEOUT_MS); a
  // migration (an index build, a backfill over a large table) may run longer, so it runs on one session
  // without the limit, restored to the pool's default after.
  const { error, results } = await db.connection().execute(async (connection) => {
    if (postgres) await sql`set statement_timeout = 0`.execute(connection);
    try {
      const migrator = new Migrator({
        db: connection,
        provider,
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      return await migrator.migrateToLatest();
    } finally {
      if (postgres) await sql`reset statement_timeout`.execute(connection);
    }
  });
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
