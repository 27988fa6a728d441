import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import * as platform from './migrations/0001-platform.ts';
import * as crmTasksActivity from './migrations/0002-crm-tasks-activity.ts';
import * as crmLedger from './migrations/0003-crm-ledger.ts';
import * as supportCmsAssets from './migrations/0004-support-cms-assets.ts';
import * as integrationsNotifications from './migrations/0005-integrations-notifications.ts';
import * as projectsProductsCalendar from './migrations/0006-projects-products-calendar.ts';
import * as rateLimits from './migrations/0007-rate-limits.ts';
import * as assetContentCleanup from './migrations/0008-asset-content-cleanup.ts';
import * as outboxRelay from './migrations/0009-outbox-relay.ts';
import * as runs from './migrations/0010-runs.ts';

// Listed explicitly, in order: a migration exists when it is named here.
const migrations: Record<string, Migration> = {
  '0001-platform': platform,
  '0002-crm-tasks-activity': crmTasksActivity,
  '0003-crm-ledger': crmLedger,
  '0004-support-cms-assets': supportCmsAssets,
  '0005-integrations-notifications': integrationsNotifications,
  '0006-projects-products-calendar': projectsProductsCalendar,
  '0007-rate-limits': rateLimits,
  '0008-asset-content-cleanup': assetContentCleanup,
  '0009-outbox-relay': outboxRelay,
  '0010-runs': runs,
};

const provider: MigrationProvider = { getMigrations: async () => migrations };

/**
 * Applies pending migrations. On PostgreSQL with a configured schema, Kysely's own bookkeeping tables live in
 * that schema too: its existence check looks across schemas, so another schema's tables would be mistaken
 * for ours.
 */
export async function migrateToLatest(db: Kysely<any>, schema?: string): Promise<string[]> {
  const migrator = new Migrator({ db, provider, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
