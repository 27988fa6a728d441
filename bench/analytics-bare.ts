// The yardstick of the ingest run in `npm run bench:analytics`: the rows the REST run stored, built as the
// service builds them (toRow), inserted with a prepared multi-row INSERT into a freshly migrated database,
// one transaction per 1,000-event batch. Only the insert is timed.
import { createRequire } from 'node:module';
import SQLite from 'better-sqlite3';
import { startCheckpointer } from '../src/db/sqlite-checkpointer.ts';
import type { AppEventsTable } from '../src/modules/product-analytics/analytics-tables.ts';
import { type AppEvent, toRow } from '../src/modules/product-analytics/app-event-rows.ts';
import { entry } from './analytics-data.ts';
import { EVENT_COLUMNS, EVENTS, insertSql, pgClient } from './analytics-seed.ts';

const BATCH = 1_000;
const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? 0;

/** The yardstick: app_events rows in one transaction per batch, a prepared 500-row insert at a time. */
export interface BareInsert {
  insert(rows: AppEventsTable[]): Promise<void>;
  close(): Promise<void>;
}

const BARE_ROWS = 500;
const flat = (rows: AppEventsTable[]) => rows.flatMap((row) => EVENT_COLUMNS.map((c) => row[c]));

/**
 * SQLite with the service's settings: WAL, synchronous NORMAL, temporary files in memory, and checkpoints in
 * a worker thread rather than in the committing call (on this machine's disk an in-line checkpoint doubles
 * the cost of a batch).
 */
export function sqliteBareInsert(file: string): BareInsert {
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('wal_autocheckpoint = 0');
  db.pragma('temp_store = memory');
  const checkpointer = startCheckpointer(file, createRequire(import.meta.url).resolve('better-sqlite3'));
  const statements = new Map<number, SQLite.Statement>();
  const prepared = (rows: number) =>
    entry(statements, rows, () => db.prepare(insertSql(EVENTS, rows, () => '?')));
  const batch = db.transaction((rows: AppEventsTable[]) => {
    for (let i = 0; i < rows.length; i += BARE_ROWS) {
      const part = rows.slice(i, i + BARE_ROWS);
      prepared(part.length).run(flat(part));
    }
  });
  return {
    insert: async (rows) => batch(rows),
    close: async () => {
      await checkpointer.stop();
      db.close();
    },
  };
}

/** PostgreSQL: one connection, a 500-row parameterized insert at a time (named, so prepared once). */
export async function pgBareInsert(url: string, schema: string): Promise<BareInsert> {
  const client = pgClient(url, schema);
  await client.connect();
  return {
    insert: async (rows) => {
      await client.query('begin');
      for (let i = 0; i < rows.length; i += BARE_ROWS) {
        const part = rows.slice(i, i + BARE_ROWS);
        await client.query({
          name: `bare_${part.length}`,
          text: insertSql(EVENTS, part.length, (n) => `$${n}`),
          values: flat(part),
        });
      }
      await client.query('commit');
    },
    close: () => client.end(),
  };
}

/** The same batches the REST run stored, as the service's rows, each batch in one transaction. */
export async function bareInsert(insert: BareInsert, templates: string[][], batches: number) {
  const times: number[] = [];
  const source = {
    workspaceId: 'ws_bare',
    sourceType: 'api_key' as const,
    sourceId: 'cred_bare',
    userAgent: 'bench',
    receivedAt: new Date().toISOString(),
  };
  for (let n = 0; n < batches; n++) {
    const body = JSON.parse(templates[n % templates.length]!.join(`b${n}`)) as { events: AppEvent[] };
    const rows = body.events.map((event) => toRow(event, source, []));
    const started = performance.now();
    await insert.insert(rows);
    times.push(performance.now() - started);
  }
  await insert.close();
  const total = times.reduce((a, b) => a + b, 0);
  times.sort((a, b) => a - b);
  return {
    eventsPerSecond: (batches * BATCH) / (total / 1000),
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
  };
}
