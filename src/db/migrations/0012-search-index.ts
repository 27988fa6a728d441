import type { Kysely } from 'kysely';
import { createSearchIndexes } from '../../core/search-index.ts';

// Every `query` search reads a trigram index (src/core/search-index.ts): pg_trgm GIN indexes on
// PostgreSQL (the extension is created here), FTS5 tables kept by triggers on SQLite, filled from the rows
// already there. The tables searchable when this migration was written, with their columns then: a
// record that searches other columns later, or a table made searchable later, gets its index from a
// migration of its own (its table may not exist yet when this one runs).
const TABLES = {
  contacts: ['name', 'email', 'company_name', 'notes'],
  companies: ['name', 'domain', 'website', 'notes'],
  leads: ['name', 'email', 'company_name', 'title'],
  notes: ['title', 'body'],
  accounting_accounts: ['code', 'name', 'description'],
  journal_entries: ['memo', 'entry_number'],
  activities: ['summary', 'body'],
  support_queues: ['key', 'name', 'description'],
  support_tickets: ['subject', 'description'],
  cms_sites: ['name', 'domain', 'description'],
  cms_collections: ['key', 'name', 'description'],
  cms_entries: ['title', 'search_text'],
  marketing_campaigns: ['name', 'description'],
  marketing_posts: ['title', 'body'],
  assets: ['file_name'],
  analytics_events: ['name', 'description'],
  analytics_sites: ['name'],
  calendars: ['name', 'description'],
  calendar_events: ['title', 'description', 'location'],
  projects: ['name', 'key', 'description'],
  project_boards: ['name', 'description'],
  project_tasks: ['title', 'description', 'key'],
  products: ['name', 'key', 'description'],
  product_releases: ['version', 'name', 'notes'],
  product_roadmap_items: ['title', 'description'],
};

export async function up(db: Kysely<any>): Promise<void> {
  await createSearchIndexes(db, TABLES);
}
