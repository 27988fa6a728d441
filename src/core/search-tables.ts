// The tables whose list operations take a free-text `query`, each with its searchable columns: the one
// declaration the search index (migration, triggers) and the queries (src/core/search.ts) share, so the
// three cannot disagree. Changing a table's columns, or adding a table, needs a new migration calling
// createSearchIndex (src/core/search-index.ts), which rebuilds that table's index from its rows.
export const SEARCHABLE = {
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
} as const satisfies Record<string, readonly string[]>;

export type SearchableTable = keyof typeof SEARCHABLE;

/**
 * Whether a search term can use the trigram index: it needs three letters or digits in a row. pg_trgm
 * extracts trigrams from the runs of letters and digits of a LIKE pattern only, so a shorter term ("al",
 * "a b", "@x") would read the whole index; such terms are matched by a scan instead (heavy, docs/contract.md
 * section 17). The same rule on SQLite keeps both databases answering the same way.
 */
export function isIndexedTerm(text: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(text);
}
