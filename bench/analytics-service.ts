// The service side of `npm run bench:analytics`: a database of its own (a directory for SQLite, a fresh schema
// for PostgreSQL, as the tests make one), migrated, with workspaces and keys; the snapshot rebuild the seed
// needs; the service itself as a child process; the count of what ingest stored.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { rebuildStaleObjectWindows } from '../src/modules/product-analytics/object-window-job.ts';
import { analyzeObjectWindows } from '../src/modules/product-analytics/object-window-store.ts';
import { pgClient } from './analytics-seed.ts';
import { benchWorkspace } from './bench-service.ts';

export const DATABASE_URL = process.env.BENCH_DATABASE_URL || undefined;
/** A port nothing listens on now: other benchmarks may be running on this machine. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
export const PORT = Number(process.env.BENCH_ANALYTICS_PORT) || (await freePort());
const OPERATOR = 'wos_op_bench-operator-token-000000000000000000000000';

/** Where a database lives: a directory for SQLite, a fresh schema for PostgreSQL (as the tests do). */
export interface Place {
  env: Record<string, string>;
  file: string;
  schema?: string;
  drop(): Promise<void>;
}

export async function newPlace(dir: string): Promise<Place> {
  const dataDir = fs.mkdtempSync(path.join(dir, 'db-'));
  const file = path.join(dataDir, 'wos.sqlite');
  if (!DATABASE_URL) return { env: { WOS_DATA_DIR: dataDir }, file, drop: async () => {} };
  const schema = `wos_bench_${randomBytes(6).toString('hex')}`;
  const admin = pgClient(DATABASE_URL, 'public');
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  return {
    env: { WOS_DATA_DIR: dataDir, WOS_DATABASE_URL: DATABASE_URL, WOS_DATABASE_SCHEMA: schema },
    file,
    schema,
    drop: async () => {
      const dropper = pgClient(DATABASE_URL, 'public');
      await dropper.connect();
      await dropper.query(`drop schema if exists ${schema} cascade`);
      await dropper.query(`drop schema if exists ${schema}_jobs cascade`);
      await dropper.end();
    },
  };
}

/** Migrates a place; with `workspaces`, creates them (no rate limit) with an API key of `scopes` each. */
export async function prepare(
  place: Place,
  workspaces: string[],
  scopes: string[] = ['analytics:read', 'analytics:write'],
) {
  const database = openDatabase(loadConfig({ ...place.env, WOS_ADMIN_TOKEN: OPERATOR }));
  // The schema too on PostgreSQL: the migrator looks for its tables across schemas otherwise.
  await migrateToLatest(database.db, place.schema);
  const made: { id: string; key: string }[] = [];
  for (const name of workspaces) made.push(await benchWorkspace(database.db, name, scopes));
  await database.close();
  return made;
}

/** The seed bypasses ingest, so the hourly snapshot job's work is done here, as the job does it; in seconds. */
export async function rebuildSnapshots(place: Place): Promise<number> {
  // SQLite's read workers do not hold a process open (in the service its server does): this timer does.
  const open = setInterval(() => {}, 60_000);
  try {
    const database = openDatabase(loadConfig({ ...place.env, WOS_ADMIN_TOKEN: OPERATOR }));
    const started = performance.now();
    // As the job does: the groupings on the heavy-read connections (their time limit, not the API's).
    await rebuildStaleObjectWindows(database.db, new Date(), undefined, undefined, database.heavy);
    await analyzeObjectWindows(database.db, { system: true });
    const seconds = (performance.now() - started) / 1000;
    await database.close();
    return seconds;
  } finally {
    clearInterval(open);
  }
}

const logOf = (place: Place) => path.join(path.dirname(place.file), 'service.log');

/** The distinct error messages of the service's log (level error and above), the first `limit` of them. */
export function serviceErrors(place: Place, limit = 3): string[] {
  if (!fs.existsSync(logOf(place))) return [];
  const messages = new Set<string>();
  for (const line of fs.readFileSync(logOf(place), 'utf8').split('\n')) {
    if (messages.size >= limit) break;
    try {
      const entry = JSON.parse(line) as { level: number; msg?: string; err?: { message?: string } };
      if (entry.level >= 50) messages.add(`${entry.msg ?? ''}: ${entry.err?.message ?? ''}`.slice(0, 300));
    } catch {
      // Not a log line (a partial write at the end).
    }
  }
  return [...messages];
}

export async function startService(place: Place): Promise<ChildProcess> {
  // BENCH_CPU_PROF=<dir>: the service writes a CPU profile there when it stops (where ingest spends its time).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  // BENCH_SQL_PROF=<dir>: and the time of each SQLite statement (bench/sql-profile.mjs).
  if (process.env.BENCH_SQL_PROF) profile.push('--import', path.resolve('bench/sql-profile.mjs'));
  const child = spawn(process.execPath, [...profile, 'bin/wos.js', 'serve'], {
    env: {
      ...process.env,
      ...place.env,
      WOS_ADMIN_TOKEN: OPERATOR,
      WOS_LOG_LEVEL: 'warn',
      PORT: String(PORT),
      // A read slower than the default 30 s limit still gives a figure instead of failing the run.
      WOS_HEAVY_READ_TIMEOUT_MS: '300000',
    },
    // Its log (warnings and errors) goes to a file: serviceErrors() reads it when a request fails.
    stdio: ['ignore', fs.openSync(logOf(place), 'a'), 'inherit'],
  });
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`wos serve exited with ${child.exitCode}`);
    const ready = await fetch(`http://127.0.0.1:${PORT}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error('wos serve did not become ready');
}

export async function storedEvents(place: Place, workspaceId: string): Promise<number> {
  const text = 'select count(*) as n from app_events where workspace_id = ';
  if (!place.schema) {
    const db = new SQLite(place.file, { readonly: true });
    const row = db.prepare(`${text}?`).get(workspaceId) as { n: number };
    db.close();
    return row.n;
  }
  const client = pgClient(DATABASE_URL!, place.schema);
  await client.connect();
  const result = await client.query(`${text}$1`, [workspaceId]);
  await client.end();
  return Number(result.rows[0].n);
}
