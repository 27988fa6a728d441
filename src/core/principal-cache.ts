// Credential lookups cached per node: on PostgreSQL each one is a round trip, on SQLite a statement and a
// principal built from JSON on the one thread. Every change that can alter what a credential opens (a revoked
// credential, a changed or deleted workspace) calls forgetCachedPrincipals() when it returns, and on
// PostgreSQL sends a NOTIFY in the changing transaction (notifyPrincipalChange): PostgreSQL delivers it at
// commit to every node listening, and each drops its cache. A PostgreSQL node caches only while its LISTEN
// connection is up (when it drops, the cache is emptied and bypassed until it is back); SQLite sees another
// process's commit (the CLI's) in PRAGMA data_version. An entry lives at most `ttlMs` as a backstop.
import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { isPostgres } from '../db/dialect.ts';
import type { DB } from '../db/tables.ts';

const CHANNEL = 'wos_principals';
const RECONNECT_MS = 1_000;
const MAX_ENTRIES = 10_000;

export interface PrincipalCache {
  /** The cached value of `key`, or what `load` finds (kept when `keep` says so, and nothing changed meanwhile). */
  get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): Promise<T>;
  /** Whether lookups are served from the cache now (the LISTEN connection is up). */
  readonly active: boolean;
  close(): Promise<void>;
}

/**
 * Tells every node that the credentials of `workspaceId` may open something else now: call it in the
 * changing transaction (PostgreSQL delivers the notification at its commit), then forgetCachedPrincipals().
 */
export async function notifyPrincipalChange(db: Kysely<DB>, workspaceId: string): Promise<void> {
  if (isPostgres(db)) await sql`select pg_notify(${CHANNEL}, ${workspaceId})`.execute(db);
}

// The caches of this process: its own change takes effect on it when the change returns, not when the
// notification comes back.
const live = new Set<() => void>();

/** After a committed change (notifyPrincipalChange): this process's caches forget every credential. */
export function forgetCachedPrincipals(): void {
  for (const invalidate of live) invalidate();
}

/** The entries of one cache and their lookup; `caching()` says whether a value may be served or kept now. */
function entriesOf(ttlMs: number, caching: () => boolean) {
  const entries = new Map<string, { value: unknown; expires: number }>();
  // Bumped by every invalidation: a lookup that started before one must not store what it read.
  let generation = 0;
  return {
    invalidate() {
      generation++;
      entries.clear();
    },
    async get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
      if (!caching()) return load();
      const now = Date.now();
      const entry = entries.get(key);
      if (entry && entry.expires > now) return entry.value as T;
      const started = generation;
      const value = await load();
      if (caching() && generation === started && keep(value)) {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        entries.set(key, { value, expires: now + ttlMs });
      }
      return value;
    },
  };
}

export function createPrincipalCache(
  databaseUrl: string,
  ttlMs: number,
  logger: Pick<Logger, 'warn'>,
): PrincipalCache {
  let listening = false;
  let closed = false;
  let client: pg.Client | undefined;
  let retry: NodeJS.Timeout | undefined;
  const entries = entriesOf(ttlMs, () => listening);
  const invalidate = entries.invalidate;

  const connect = () => {
    const next = new pg.Client({ connectionString: databaseUrl });
    client = next;
    const lost = (err?: Error) => {
      if (client !== next) return;
      client = undefined;
      listening = false;
      invalidate();
      next.end().catch(() => {});
      if (closed) return;
      if (err) logger.warn({ err }, 'credential cache: LISTEN connection lost; lookups bypass the cache');
      retry = setTimeout(connect, RECONNECT_MS);
      retry.unref();
    };
    next.on('notification', invalidate);
    next.on('error', lost);
    next.on('end', () => lost());
    next
      .connect()
      .then(() => next.query(`listen ${CHANNEL}`))
      .then(() => {
        if (client !== next) return;
        // Anything may have changed while no notification could arrive.
        invalidate();
        listening = true;
      })
      .catch(lost);
  };
  if (ttlMs > 0) {
    live.add(invalidate);
    connect();
  }

  return {
    get active() {
      return listening;
    },
    get: entries.get,
    async close() {
      closed = true;
      live.delete(invalidate);
      clearTimeout(retry);
      listening = false;
      const current = client;
      client = undefined;
      invalidate();
      await current?.end().catch(() => {});
    },
  };
}

/**
 * SQLite: this process makes its own changes (each calls forgetCachedPrincipals); another process writing
 * the same file (the CLI revoking a key) changes `dataVersion()`, PRAGMA data_version of the main connection,
 * which is read before every lookup, so its change takes effect at the next request.
 */
export function createSqlitePrincipalCache(ttlMs: number, dataVersion: () => number): PrincipalCache {
  let open = true;
  let seen = dataVersion();
  const entries = entriesOf(ttlMs, () => open);
  live.add(entries.invalidate);
  return {
    get active() {
      return open;
    },
    get<T>(key: string, load: () => Promise<T>, keep: (value: T) => boolean): Promise<T> {
      const version = dataVersion();
      if (version !== seen) {
        seen = version;
        entries.invalidate();
      }
      return entries.get(key, load, keep);
    },
    async close() {
      open = false;
      live.delete(entries.invalidate);
      entries.invalidate();
    },
  };
}
