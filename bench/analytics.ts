// `npm run bench:analytics` (and the last part of `npm run bench`): application events (issue 11). Batched
// ingest over REST beside a bare multi-row insert of the same rows, then the Object Analytics reads through
// the API over a seeded month of events. SQLite by default; PostgreSQL when BENCH_DATABASE_URL is set.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import autocannon from 'autocannon';
import { bareInsert, pgBareInsert, sqliteBareInsert } from './analytics-bare.ts';
import { batchTemplate } from './analytics-data.ts';
import { pgWriter, type SeedSummary, seedAppEvents, sqliteWriter } from './analytics-seed.ts';
import {
  DATABASE_URL,
  newPlace,
  type Place,
  PORT,
  prepare,
  rebuildSnapshots,
  serviceErrors,
  startService,
  storedEvents,
} from './analytics-service.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EVENTS = Number(process.env.BENCH_APP_EVENTS ?? 10_000_000);
const OBJECTS = Number(process.env.BENCH_APP_OBJECTS ?? 100_000);
const CONNECTIONS = 8;
const BATCH = 1_000;
/** Distinct batch bodies; each request gives its events new IDs, so none is ever a duplicate. */
const TEMPLATES = 16;

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? 0;

/** One request at a time: at least 20 samples, up to 40 or a minute, after two warm-up requests. */
async function timedReads(url: string, key: string) {
  const get = async () => {
    const started = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    const body = await response.json();
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status} ${JSON.stringify(body)}`);
    return { ms: performance.now() - started, body };
  };
  const first = await get();
  await get();
  const times: number[] = [];
  const started = Date.now();
  while (times.length < 40 && !(times.length >= 20 && Date.now() - started > 60_000)) {
    times.push((await get()).ms);
  }
  times.sort((a, b) => a - b);
  return {
    body: first.body,
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    samples: times.length,
  };
}

/** The reads must see the seed (it writes what ingest would): the top object, and every event over time. */
function checkSeen(grouped: unknown, timeseries: unknown, seed: SeedSummary) {
  type Row = { object_id: string; events: number; unique_actors: number };
  const top = (grouped as { objects: Row[] }).objects[0];
  if (top?.object_id !== seed.top.key.object_id || top.events !== seed.top.events) {
    throw new Error(
      `first page starts with ${JSON.stringify(top)}, the seed's top object is ${JSON.stringify(seed.top)}`,
    );
  }
  const points = (timeseries as { points: { events: number }[] }).points;
  const total = points.reduce((sum, point) => sum + point.events, 0);
  if (total !== seed.events)
    throw new Error(`the timeseries counts ${total} events, the seed ${seed.events}`);
  const error = (top.unique_actors - seed.top.actors) / seed.top.actors;
  process.stdout.write(
    `unique actors of the top object: ${count(top.unique_actors)} (sketch) vs ${count(seed.top.actors)} ` +
      `(exact), error ${(error * 100).toFixed(2)}%\n`,
  );
}

async function ingestOverRest(key: string, templates: string[][]) {
  let sent = 0;
  let failure = '';
  const result = await autocannon({
    url: `http://127.0.0.1:${PORT}/v1/insights/app-events`,
    connections: CONNECTIONS,
    duration: SECONDS,
    timeout: 60,
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    requests: [
      {
        setupRequest: (request) => {
          const n = sent++;
          return { ...request, body: templates[n % templates.length]!.join(`r${n}`) };
        },
        onResponse: (status, body) => {
          if (status >= 300 && !failure) failure = `${status} ${body.slice(0, 500)}`;
        },
      },
    ],
  });
  return {
    // Stored batches only: a failed one (reported below the table) stores nothing.
    eventsPerSecond: (result['2xx'] * BATCH) / result.duration,
    failures: result.non2xx + result.errors + result.timeouts,
    failure,
    p50: result.latency.p50,
    p99: result.latency.p99,
    batches: result['2xx'],
  };
}

interface Latency {
  p50: number;
  p95: number;
  samples: number;
}

function printFigures(run: {
  dialect: string;
  templates: string[][];
  rest: Awaited<ReturnType<typeof ingestOverRest>>;
  stored: number;
  bare: { eventsPerSecond: number; p50: number; p99: number };
  grouped: Latency;
  timeseries: Latency;
  object?: Latency;
  drill?: SeedSummary['drill'];
  errors: string[];
}) {
  const { rest, bare, grouped, timeseries } = run;
  const out = (text: string) => process.stdout.write(`${text}\n`);
  const bytes = Buffer.byteLength(run.templates[0]!.join('r0')) / BATCH;
  out(
    `\n${run.dialect}, ${SECONDS} s of ingest, ${CONNECTIONS} connections, ${os.cpus().length} cores, ` +
      `Node ${process.version}; ${count(rest.batches)} batches of ${BATCH} events (~${count(bytes)} bytes an ` +
      `event) answered 202 (${count(run.stored)} rows stored, requests still running at the end included)\n`,
  );
  out('| ingest, 1,000-event batches | events/s | p50 ms a batch | p99 ms a batch | vs bare insert |');
  out('|---|---:|---:|---:|---:|');
  out(
    `| bare multi-row insert of the same rows into app_events (one connection) | ${count(bare.eventsPerSecond)} | ` +
      `${bare.p50.toFixed(1)} | ${bare.p99.toFixed(1)} | 1.00 |`,
  );
  out(
    `| POST /v1/insights/app-events over REST | ${count(rest.eventsPerSecond)} | ${rest.p50} | ${rest.p99} | ` +
      `${(rest.eventsPerSecond / bare.eventsPerSecond).toFixed(2)} |`,
  );
  out('\n| read through the API, one at a time | p50 ms | p95 ms | samples | target |');
  out('|---|---:|---:|---:|---|');
  const line = (name: string, r: Latency, target: string) =>
    out(`| ${name} | ${r.p50.toFixed(0)} | ${r.p95.toFixed(0)} | ${r.samples} | ${target} |`);
  line('Object Analytics first page, `window=30d`', grouped, 'p95 < 250 ms');
  line('timeseries, `window=30d&interval=hour`', timeseries, 'p95 < 100 ms');
  if (run.object && run.drill) {
    line(`drill-down of an object with ${count(run.drill.events)} events, \`window=30d\``, run.object, '');
  }
  if (rest.failures > 0) {
    // Reported rather than thrown, so the figures of the run still print; the exit code says it failed.
    out(`\ningest: ${rest.failures} failed requests (first: ${rest.failure})`);
    out(`service log, first errors: ${run.errors.join('; ')}`);
    process.exitCode = 1;
  }
  out(
    `\ntargets: ingest >= 50,000 events/s on SQLite (${count(rest.eventsPerSecond)}); Object Analytics p95 < ` +
      `250 ms (${grouped.p95.toFixed(0)} ms); timeseries p95 < 100 ms (${timeseries.p95.toFixed(0)} ms)`,
  );
}

export async function analyticsBench(): Promise<void> {
  const analyze = process.env.BENCH_SQLITE_ANALYZE === '1';
  const dialect = DATABASE_URL
    ? 'PostgreSQL (VACUUM ANALYZE after the seed)'
    : `SQLite (${analyze ? 'ANALYZE after the seed' : 'no ANALYZE: the service never runs it'})`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-bench-analytics-'));
  const places: Place[] = [];
  let service: ChildProcess | undefined;
  try {
    const place = await newPlace(dir);
    places.push(place);
    const [reads, ingest] = await prepare(place, ['Analytics reads', 'Analytics ingest']);
    const started = Date.now();
    const writer = place.schema
      ? await pgWriter(DATABASE_URL!, place.schema)
      : sqliteWriter(place.file, analyze);
    const seed = await seedAppEvents(writer, reads!.id, EVENTS, OBJECTS, Date.now());
    const seedSeconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `\napp events (${dialect}): seeded ${count(seed.events)} events over ${count(OBJECTS)} objects in 30 days ` +
        `as ${count(seed.rollups)} hourly rollups, ${count(seed.actors)} actor-days (one sketch per object and day) and ${count(seed.rawEvents)} ` +
        `raw events (drill-down objects) in ${seedSeconds.toFixed(0)} s\n`,
    );
    const rebuild = await rebuildSnapshots(place);
    process.stdout.write(
      `Object Analytics snapshots (7d/30d/90d, the hourly job app-events.object-windows) rebuilt in ${rebuild.toFixed(1)} s\n`,
    );

    service = await startService(place);
    const api = `http://127.0.0.1:${PORT}/v1/insights/app-events`;
    const grouped = await timedReads(`${api}?window=30d`, reads!.key);
    const timeseries = await timedReads(`${api}/timeseries?window=30d&interval=hour`, reads!.key);
    checkSeen(grouped.body, timeseries.body, seed);
    const drill = seed.drill;
    const object = drill
      ? await timedReads(
          `${api}/objects/${drill.key.app}/${drill.key.object_type}/${drill.key.object_id}?window=30d`,
          reads!.key,
        )
      : undefined;

    const templates = Array.from({ length: TEMPLATES }, (_, i) =>
      batchTemplate(i + 1, BATCH, OBJECTS, Date.now()),
    );
    const rest = await ingestOverRest(ingest!.key, templates);
    service.kill('SIGTERM');
    await new Promise((resolve) => service!.once('exit', resolve));
    service = undefined;
    const stored = await storedEvents(place, ingest!.id);
    if (stored < rest.batches * BATCH)
      throw new Error(`ingest: ${stored} events stored of ${rest.batches * BATCH}`);

    const barePlace = await newPlace(dir);
    places.push(barePlace);
    await prepare(barePlace, []);
    const bare = await bareInsert(
      barePlace.schema
        ? await pgBareInsert(DATABASE_URL!, barePlace.schema)
        : sqliteBareInsert(barePlace.file),
      templates,
      // At least ten batches, so a run where REST stored little still has a yardstick.
      Math.max(rest.batches, 10),
    );

    const errors = serviceErrors(place);
    printFigures({ dialect, templates, rest, stored, bare, grouped, timeseries, object, drill, errors });
  } catch (error) {
    const errors = places[0] ? serviceErrors(places[0]) : [];
    if (errors.length) process.stderr.write(`service log, first errors:\n${errors.join('\n')}\n`);
    throw error;
  } finally {
    service?.kill('SIGTERM');
    for (const place of places) await place.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  await analyticsBench();
}
