// In-process timing of the Object Analytics first page (`window=30d`, 25 objects) and of its parts: the
// ranking from the snapshot, top events, unique actors; p50/p95 of BENCH_SAMPLES (30) calls after 3 warm-ups,
// and the CPU time of a call in this process and in its PostgreSQL backends (a figure a shared machine's
// load moves less than latency; on SQLite the heavy reads' worker processes are not counted). It seeds with bench:analytics's seeder (events and snapshot as of 4 past
// an hour, as the hourly job leaves them) and keeps the seed, so two checkouts of the code compare on the
// same data, their runs interleaved:
//   BENCH_DATABASE_URL=postgres://... BENCH_APP_EVENTS=2000000 BENCH_APP_OBJECTS=50000 \
//     npx tsx bench/object-page-parts.ts          (prints BENCH_REUSE=<schema>,<workspace>,<now>)
//   BENCH_DATABASE_URL=postgres://... BENCH_REUSE=<printed> npx tsx bench/object-page-parts.ts
// BENCH_DROP=1 drops the seed at the end. Without BENCH_DATABASE_URL it runs on SQLite (BENCH_REUSE then
// names the data directory).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { HOUR, resolveWindow, windowText } from '../src/modules/product-analytics/app-event-window.ts';
import { uniqueActors } from '../src/modules/product-analytics/object-actors-store.ts';
import { objectAnalyticsRows } from '../src/modules/product-analytics/object-analytics.ts';
import { countsByEventName } from '../src/modules/product-analytics/object-page-store.ts';
import { rebuildStaleObjectWindows } from '../src/modules/product-analytics/object-window-job.ts';
import { rankFromSnapshot } from '../src/modules/product-analytics/object-window-read.ts';
import { pgWriter, seedAppEvents, sqliteWriter } from './analytics-seed.ts';
import { DATABASE_URL, prepare } from './analytics-service.ts';

const EVENTS = Number(process.env.BENCH_APP_EVENTS ?? 2_000_000);
const OBJECTS = Number(process.env.BENCH_APP_OBJECTS ?? 50_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const LIMIT = 25;

async function seeded(): Promise<{ env: Record<string, string>; workspace: string; now: number }> {
  const reuse = process.env.BENCH_REUSE;
  const envOf = (where: string): Record<string, string> =>
    DATABASE_URL
      ? { WOS_DATA_DIR: os.tmpdir(), WOS_DATABASE_URL: DATABASE_URL, WOS_DATABASE_SCHEMA: where }
      : { WOS_DATA_DIR: where };
  if (reuse) {
    const [where, workspace, now] = reuse.split(',');
    return { env: envOf(where!), workspace: workspace!, now: Number(now) };
  }
  // 4 past the previous hour: the snapshot reaches two hours back, so three edge hours are read.
  const now = Math.floor(Date.now() / HOUR) * HOUR - HOUR + 4 * 60_000;
  let where: string;
  if (DATABASE_URL) {
    where = `wos_bench_parts_${Date.now()}`;
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`create schema ${where}`);
    await admin.end();
  } else {
    where = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-bench-parts-'));
  }
  const env = envOf(where);
  const place = { env, file: path.join(where, 'wos.sqlite'), schema: DATABASE_URL ? where : undefined };
  const [workspace] = await prepare({ ...place, drop: async () => {} }, ['Object page parts']);
  const writer = place.schema ? await pgWriter(DATABASE_URL!, place.schema) : sqliteWriter(place.file);
  const started = Date.now();
  await seedAppEvents(writer, workspace!.id, EVENTS, OBJECTS, now);
  process.stdout.write(`seeded ${EVENTS} events, ${OBJECTS} objects in ${(Date.now() - started) / 1000} s\n`);
  await rebuildAt(env, now);
  process.stdout.write(`BENCH_REUSE=${where},${workspace!.id},${now}\n`);
  return { env, workspace: workspace!.id, now };
}

/** The snapshot rebuild of the hourly job as of `now`, on the heavy-read connections as the job runs it. */
async function rebuildAt(env: Record<string, string>, now: number) {
  const database = openDatabase(loadConfig({ ...env, WOS_LOG_LEVEL: 'error' }));
  const started = performance.now();
  await rebuildStaleObjectWindows(database.db, new Date(now), undefined, undefined, database.heavy);
  process.stdout.write(`snapshots rebuilt in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  await database.close();
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? 0;

/**
 * CPU time of this process and of its PostgreSQL backends (found by application_name, read from /proc: the
 * server runs on this machine), in ms: on a shared machine, a figure that other work barely moves.
 */
async function cpuMs(): Promise<{ own: number; server: number }> {
  const own = process.cpuUsage();
  let server = 0;
  if (DATABASE_URL) {
    const { rows } = await admin.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [APP_NAME],
    );
    for (const { pid } of rows) {
      try {
        const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        // utime and stime, in clock ticks of 10 ms.
        server += (Number(fields[11]) + Number(fields[12])) * 10;
      } catch {
        // A backend that closed: its time is lost (the pool keeps its connections while a part runs).
      }
    }
  }
  return { own: (own.user + own.system) / 1000, server };
}

async function timed(name: string, work: () => Promise<unknown>) {
  for (let i = 0; i < 3; i++) await work();
  const times: number[] = [];
  const cpuBefore = await cpuMs();
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  const cpuAfter = await cpuMs();
  const own = (cpuAfter.own - cpuBefore.own) / SAMPLES;
  const server = (cpuAfter.server - cpuBefore.server) / SAMPLES;
  times.sort((a, b) => a - b);
  const line =
    `${name}: p50 ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms, ` +
    `CPU ${(own + server).toFixed(1)} ms (this process ${own.toFixed(1)}, PostgreSQL ${server.toFixed(1)})`;
  process.stdout.write(`${line}\n`);
}

// SQLite's read workers do not hold the process open while it waits on them: this timer does.
const open = setInterval(() => {}, 60_000);
const { env, workspace, now } = await seeded();
// The service's connections carry this name, so their backends' CPU time can be read (cpuMs).
const APP_NAME = `wos_bench_parts_${process.pid}`;
process.env.PGAPPNAME = APP_NAME;
const admin = new pg.Client({
  connectionString: DATABASE_URL ?? 'postgres://unused',
  application_name: 'parts',
});
if (DATABASE_URL) await admin.connect();
const database = openDatabase(loadConfig({ ...env, WOS_LOG_LEVEL: 'error' }));
const db = database.heavy;
const filters = { window: '30d' as const };
const window = resolveWindow(filters, new Date(now).toISOString());
const text = windowText(window);
const options = { sort: 'events' as const, limit: LIMIT };
const first = await objectAnalyticsRows(db, workspace, filters, window, options);
const load = () =>
  os
    .loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
process.stdout.write(
  `load average ${load()}; top object ${first.objects[0]?.object_id} ` +
    `${first.objects[0]?.events} events, ${first.objects[0]?.unique_actors} actors\n`,
);
const page = first.ranked.slice(0, LIMIT);
await timed('first page', () => objectAnalyticsRows(db, workspace, filters, window, options));
await timed('ranking', () =>
  rankFromSnapshot(db, workspace, filters, window, 'events', undefined, LIMIT + 1),
);
await timed('top events', () => countsByEventName(db, workspace, page, undefined, text));
await timed('unique actors', () => uniqueActors(db, workspace, page, text));
process.stdout.write(`load average ${load()}\n`);
await database.close();
if (process.env.BENCH_DROP === '1') {
  if (DATABASE_URL) {
    const schema = env.WOS_DATABASE_SCHEMA!;
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.query(`drop schema if exists ${schema}_jobs cascade`);
  } else {
    fs.rmSync(env.WOS_DATA_DIR!, { recursive: true, force: true });
  }
}
if (DATABASE_URL) await admin.end();
clearInterval(open);
