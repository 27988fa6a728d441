// The tables whose list operations take a free-text `query`, each with its searchable columns. A declared
// record (src/core/define-record.ts) says its own with `.search()` and is not listed here; the tables here
// belong to modules that do not declare their records yet, and leave this list when they do. The registry
// collects both (searchableTables); the search-drift test compares them with each table's index. Changing
// a table's columns, or adding a table, needs a new migration calling createSearchIndexes
// (src/core/search-index.ts), which rebuilds that table's index from its rows.
export const SEARCHABLE = {
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

/** A declared record's table and the columns its `query` matches. */
export interface SearchTarget {
  table: string;
  searchColumns: readonly string[];
}

/** Every searchable table with its columns: those listed above and those of the declared records. */
export function searchableTables(
  records: Iterable<SearchTarget | object>,
): ReadonlyMap<string, readonly string[]> {
  const tables = new Map<string, readonly string[]>(Object.entries(SEARCHABLE));
  for (const record of records) {
    if (!('searchColumns' in record) || record.searchColumns.length === 0) continue;
    if (tables.has(record.table)) throw new Error(`The search columns of ${record.table} are declared twice`);
    tables.set(record.table, record.searchColumns);
  }
  return tables;
}

/**
 * Whether a search term can use the trigram index: it needs three letters or digits in a row. pg_trgm
 * extracts trigrams from the runs of letters and digits of a LIKE pattern only, so a shorter term ("al",
 * "a b", "@x") would read the whole index; such terms are matched by a scan instead (heavy, docs/contract.md
 * section 17). The same rule on SQLite keeps both databases answering the same way.
 */
export function isIndexedTerm(text: string): boolean {
  return /[\p{L}\p{N}]{3}/u.test(text);
}
