import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  PostgresDialect,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { queryTimedOut } from '../core/errors.ts';
import { createReadPool, type ReadPool } from './sqlite-read-pool.ts';
import type { DB } from './tables.ts';

// Heavy reads (operations declared `heavy`) get their own Kysely instance: the handler and its store
// functions are unchanged, only where their queries run differs. It never writes and never opens a
// transaction: the call's own writes (its call event) stay on the main database.

/** Every heavy-read Kysely instance: readSnapshot (read-snapshot.ts) runs their reads as they are. */
const heavyReaders = new WeakSet<Kysely<DB>>();

export const isHeavyReader = (db: Kysely<DB>): boolean => heavyReaders.has(db);

function heavyKysely(dialect: Dialect): Kysely<DB> {
  const db = new Kysely<DB>({ dialect });
  heavyReaders.add(db);
  return db;
}

function noTransactions(): Promise<never> {
  return Promise.reject(new Error('Heavy reads run outside transactions'));
}

/**
 * A Kysely dialect whose one stateless connection hands each compiled query to the worker pool; with a
 * signal, a query still running when it aborts is stopped.
 */
function readPoolDialect(pool: ReadPool, signal?: AbortSignal): Dialect {
  const connection: DatabaseConnection = {
    executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => ({
      rows: (await pool.query(query.sql, query.parameters, signal)) as R[],
    }),
    async *streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
      yield await connection.executeQuery<R>(query);
    },
  };
  const driver: Driver = {
    init: async () => {},
    acquireConnection: async () => connection,
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    releaseConnection: async () => {},
    destroy: () => pool.close(),
  };
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db) => new SqliteIntrospector(db),
  };
}

/**
 * SQLite: worker processes with read-only connections to the service's file. `until(signal)` reads through
 * the same workers, stopping a query when the signal aborts (a run's timeout or cancel).
 */
export function sqliteHeavyReads(
  file: string,
  config: Config,
): { heavy: Kysely<DB>; until: (signal: AbortSignal) => Kysely<DB> } {
  const pool = createReadPool({ file, size: config.heavyReadPoolSize, timeoutMs: config.heavyReadTimeoutMs });
  return {
    heavy: heavyKysely(readPoolDialect(pool)),
    // Destroying it would close the shared pool: the heavy instance owns the pool's lifetime.
    until: (signal) => heavyKysely(readPoolDialect(pool, signal)),
  };
}

const QUERY_CANCELED = '57014';

/** Turns PostgreSQL's statement_timeout cancellation into the catalogue's query_timeout. */
export function translateTimeout(timeoutMs: number) {
  return (error: unknown): never => {
    if ((error as { code?: unknown } | null)?.code !== QUERY_CANCELED) throw error;
    throw queryTimedOut(timeoutMs);
  };
}

/**
 * Wraps the heavy pool's pg driver so each connection reports statement_timeout as query_timeout (never a
 * 500); it opens no transactions. The main pool's driver translates the same way (pg-driver.ts).
 */
export function withTimeoutErrors(driver: Driver, timeoutMs: number): Driver {
  const translate = translateTimeout(timeoutMs);
  const originals = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const original = (wrapped: DatabaseConnection) => originals.get(wrapped) ?? wrapped;
  return {
    init: () => driver.init(),
    acquireConnection: async () => {
      const connection = await driver.acquireConnection();
      const wrapped: DatabaseConnection = {
        executeQuery: <R>(query: CompiledQuery) => connection.executeQuery<R>(query).catch(translate),
        async *streamQuery<R>(
          query: CompiledQuery,
          chunkSize?: number,
        ): AsyncIterableIterator<QueryResult<R>> {
          try {
            yield* connection.streamQuery<R>(query, chunkSize);
          } catch (error) {
            translate(error);
          }
        },
      };
      originals.set(wrapped, connection);
      return wrapped;
    },
    beginTransaction: noTransactions,
    commitTransaction: noTransactions,
    rollbackTransaction: noTransactions,
    releaseConnection: (wrapped) => driver.releaseConnection(original(wrapped)),
    destroy: () => driver.destroy(),
  };
}

/** PostgreSQL: a small pool of its own whose sessions are read-only and carry statement_timeout. */
export function postgresHeavyReads(config: Config): Kysely<DB> {
  const settings = [
    `-c statement_timeout=${config.heavyReadTimeoutMs}`,
    '-c default_transaction_read_only=on',
    // One core per heavy read: a parallel scan would take every core of the machine from the main pool.
    '-c max_parallel_workers_per_gather=0',
    ...(config.databaseSchema ? [`-c search_path=${config.databaseSchema}`] : []),
  ];
  const pool = new pg.Pool({
    connectionString: config.databaseUrl,
    max: config.heavyReadPoolSize,
    options: settings.join(' '),
  });
  const postgres = new PostgresDialect({ pool });
  return heavyKysely({
    createAdapter: () => postgres.createAdapter(),
    createDriver: () => withTimeoutErrors(postgres.createDriver(), config.heavyReadTimeoutMs),
    createQueryCompiler: () => postgres.createQueryCompiler(),
    createIntrospector: (db) => postgres.createIntrospector(db),
  });
}
