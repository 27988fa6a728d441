import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import { createHeavySlots, type HeavySlots } from '../core/heavy-slots.ts';
import { groupCommit, type TransactionRunner } from './group-commit.ts';
import { postgresHeavyReads, sqliteHeavyReads, translateTimeout } from './heavy-reads.ts';
import { MainPoolDriver } from './pg-driver.ts';
import { SearchPathPostgresDialect } from './postgres-dialect.ts';
import { startCheckpointer } from './sqlite-checkpointer.ts';
import { statementCache } from './sqlite-statements.ts';
import type { DB } from './tables.ts';

export type Dialect = 'sqlite' | 'postgres';

export interface Database {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Runs the writes of one call atomically: its own transaction (PostgreSQL) or a group commit (SQLite). */
  transaction: TransactionRunner;
  /**
   * Where the queries of heavy reads run: read-only connections off the main thread (SQLite: worker
   * processes; PostgreSQL: a small pool of its own), each query with a time limit. Never writes.
   */
  heavy: Kysely<DB>;
  /**
   * The heavy-read connections, where a query still running when `signal` aborts is stopped (SQLite: its
   * worker process is killed). PostgreSQL: the heavy pool as is, bounded by its statement_timeout.
   */
  heavyUntil(signal: AbortSignal): Kysely<DB>;
  /** At most WOS_HEAVY_READS_PER_WORKSPACE heavy reads of one workspace at once on this node. */
  heavySlots: HeavySlots;
  /** The PostgreSQL pool, for libraries that keep their own tables (shared rate-limit counters). */
  pool?: pg.Pool;
  /** SQLite: PRAGMA data_version of the main connection, which moves when another connection commits. */
  dataVersion?: () => number;
  /** Human-readable location for start-up messages (never includes a password). */
  location: string;
  close(): Promise<void>;
}

// COUNT(*) and BIGINT arrive from pg as strings; every integer this service stores fits a JS number.
pg.types.setTypeParser(20, (value) => Number(value));

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres';
  }
}

const heavySlots = (config: Config) =>
  createHeavySlots({ perWorkspace: config.heavyReadsPerWorkspace, waitMs: config.heavyReadWaitMs });

export function openDatabase(config: Config): Database {
  if (config.databaseUrl) {
    // Every session of the main pool carries statement_timeout: no API read or write holds a connection
    // longer (a timed-out statement answers 504 query_timeout). Migrations lift it on their own session.
    const settings = [
      ...(config.statementTimeoutMs > 0 ? [`-c statement_timeout=${config.statementTimeoutMs}`] : []),
      ...(config.databaseSchema ? [`-c search_path=${config.databaseSchema}`] : []),
    ];
    const pool = new pg.Pool({
      connectionString: config.databaseUrl,
      max: config.databasePoolSize,
      // A query goes out without waiting for the one before: only a call's write effects and their COMMIT
      // are sent together (pg-driver.ts); every other query is awaited before the next.
      pipeline: true,
      ...(settings.length ? { options: settings.join(' ') } : {}),
    });
    const postgres = new SearchPathPostgresDialect({ pool });
    const db = new Kysely<DB>({
      dialect: {
        createAdapter: () => postgres.createAdapter(),
        createDriver: () => new MainPoolDriver(pool, translateTimeout(config.statementTimeoutMs)),
        createQueryCompiler: () => postgres.createQueryCompiler(),
        createIntrospector: (db) => postgres.createIntrospector(db),
      },
    });
    const heavy = postgresHeavyReads(config);
    return {
      db,
      dialect: 'postgres',
      transaction: (work) => db.transaction().execute(work),
      heavy,
      heavyUntil: () => heavy,
      heavySlots: heavySlots(config),
      pool,
      location:
        redactUrl(config.databaseUrl) + (config.databaseSchema ? ` (schema ${config.databaseSchema})` : ''),
      close: async () => {
        await Promise.all([heavy.destroy(), db.destroy()]);
      },
    };
  }
  fs.mkdirSync(config.dataDir, { recursive: true });
  const file = path.join(config.dataDir, 'wos.sqlite');
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma(`synchronous = ${config.sqliteSynchronous === 'full' ? 'FULL' : 'NORMAL'}`);
  sqlite.pragma('wal_autocheckpoint = 0');
  // Statement and savepoint journals past 64 KiB (a multi-row upsert, a search-indexed insert's call) and
  // temporary sort trees stay in memory instead of temporary files created and deleted per statement:
  // that halved the SQLite time of each insert of a create. The main connection's queries are bounded.
  sqlite.pragma('temp_store = memory');
  const checkpointer = startCheckpointer(file, createRequire(import.meta.url).resolve('better-sqlite3'));
  const dataVersion = sqlite.prepare('pragma data_version').pluck();
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database: statementCache(sqlite) }) });
  const { heavy, until } = sqliteHeavyReads(file, config);
  let closed = false;
  return {
    db,
    dialect: 'sqlite',
    transaction: groupCommit(db),
    heavy,
    heavyUntil: until,
    heavySlots: heavySlots(config),
    dataVersion: () => dataVersion.get() as number,
    location: file,
    close: async () => {
      if (closed) return;
      closed = true;
      await heavy.destroy();
      await checkpointer.stop();
      await db.destroy();
    },
  };
}

export async function isReachable(database: Database): Promise<boolean> {
  try {
    await sql`select 1`.execute(database.db);
    return true;
  } catch {
    return false;
  }
}
