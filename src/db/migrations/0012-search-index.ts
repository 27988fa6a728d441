import type { Kysely } from 'kysely';
import { createSearchIndexes } from '../../core/search-index.ts';
import type { SearchableTable } from '../../core/search-tables.ts';

// Every `query` search reads a trigram index (src/core/search-index.ts): pg_trgm GIN indexes on
// PostgreSQL (the extension is created here), FTS5 tables kept by triggers on SQLite, filled from the rows
// already there. The tables searchable when this migration was written: a table made searchable later
// gets its index from a migration of its own (its table may not exist yet when this one runs).
const TABLES: readonly SearchableTable[] = [
  'contacts',
  'companies',
  'leads',
  'notes',
  'accounting_accounts',
  'journal_entries',
  'activities',
  'support_queues',
  'support_tickets',
  'cms_sites',
  'cms_collections',
  'cms_entries',
  'marketing_campaigns',
  'marketing_posts',
  'assets',
  'analytics_events',
  'analytics_sites',
  'calendars',
  'calendar_events',
  'projects',
  'project_boards',
  'project_tasks',
  'products',
  'product_releases',
  'product_roadmap_items',
];

export async function up(db: Kysely<any>): Promise<void> {
  await createSearchIndexes(db, TABLES);
}
