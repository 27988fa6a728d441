// `npm run bench:bi-schedules`: what a workspace at its scheduled-artifact cap costs its neighbours. Seeds
// SCHEDULE_ROWS (default 20,000) deals, tickets and call events in workspace A, starts the real server (worker
// on), saves a crm_pipeline query and schedules it 200 times hourly (the default cap; the 201st create must
// answer 403 billing_limit_exceeded), all at the same minute. Workspace B's create_contact is measured one
// request at a time, first idle, then from the minute the 200 schedules fire until all their runs have
// finished; prints both and the p99 ratio (target within 2x). SQLite by default; PostgreSQL when
// BENCH_DATABASE_URL is set.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import SQLite from 'better-sqlite3';
import { SCOPES } from '../src/core/catalogue.ts';
import { pgClient } from './analytics-seed.ts';
import {
  DATABASE_URL,
  newPlace,
  type Place,
  PORT,
  prepare,
  serviceErrors,
  startService,
} from './analytics-service.ts';
import { seedBi } from './bi-seed.ts';
import { api, type LoopTiming, loopFor } from './scale-measure.ts';

const ROWS = Number(process.env.SCHEDULE_ROWS ?? 20_000);
const SCHEDULES = 200;
const SECONDS = Number(process.env.SCHEDULE_IDLE_SECONDS ?? 15);
/** The longest the runs may take to finish before the bench gives up. */
const MAX_NOISY_SECONDS = Number(process.env.SCHEDULE_MAX_SECONDS ?? 600);
const out = (text = '') => process.stdout.write(`${text}\n`);
const row = (t: LoopTiming) =>
  `${t.p50.toFixed(1)} | ${t.p95.toFixed(1)} | ${t.p99.toFixed(1)} | ${t.samples}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** The scheduled runs of a workspace by status, read from the database beside the service. */
async function scheduledRuns(place: Place, workspaceId: string): Promise<Record<string, number>> {
  const text =
    "select status, count(*) as n from runs where workspace_id = $1 and trigger = 'schedule' group by status";
  let rows: { status: string; n: number | string }[];
  if (!place.schema) {
    const db = new SQLite(place.file, { readonly: true });
    rows = db.prepare(text.replace('$1', '?')).all(workspaceId) as typeof rows;
    db.close();
  } else {
    const client = pgClient(DATABASE_URL!, place.schema);
    await client.connect();
    rows = (await client.query(text, [workspaceId])).rows;
    await client.end();
  }
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

/** One client's requests, one after another, until `done` says stop (asked every second). */
async function loopUntil(done: () => Promise<boolean>, call: (i: number) => Promise<void>) {
  let stop = false;
  let timedOut = false;
  const watch = (async () => {
    while (!stop) {
      await sleep(1000);
      if (await done()) stop = true;
    }
  })();
  const started = performance.now();
  const timing = await loopFor(MAX_NOISY_SECONDS, call, () => stop);
  timedOut = !stop;
  stop = true;
  await watch;
  return { timing, timedOut, seconds: (performance.now() - started) / 1000 };
}

export async function biSchedulesBench(): Promise<void> {
  const dialect = DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-bench-bi-schedules-'));
  const place = await newPlace(dir);
  try {
    const [a, b] = await prepare(place, ['Scheduler', 'Neighbour'], [...SCOPES]);
    await seedBi(place, a!.id, ROWS, Date.now());
    const service = await startService(place);
    const base = `http://127.0.0.1:${PORT}`;
    const A = api(base, a!.key);
    const B = api(base, b!.key);
    try {
      const saved = await A.post('/v1/bi/queries/run', {
        name: 'Pipeline',
        dataset_key: 'crm_pipeline',
        limit: 25,
      });
      // The schedules fire at the first whole minute after the creates and the idle measure are done.
      const fireAt = Math.ceil((Date.now() + (SECONDS + 30) * 1000) / 60_000) * 60_000;
      const schedule = (i: number) =>
        A.post('/v1/bi/scheduled-artifacts', {
          name: `Hourly ${i}`,
          target: { type: 'query', id: saved.query.id },
          cadence: 'hourly',
          minute: new Date(fireAt).getUTCMinutes(),
        });
      for (let i = 0; i < SCHEDULES; i++) await schedule(i);
      const capped = await schedule(SCHEDULES).then(
        () => 'created (cap NOT enforced)',
        (error: Error) =>
          error.message
            .match(/: (\d+) .*"code":"(\w+)"/)
            ?.slice(1)
            .join(' ') ?? error.message,
      );

      const create = (i: number) => B.post('/v1/contacts', { name: `Neighbour ${i}` }).then(() => {});
      const idle = await loopFor(SECONDS, create);
      if (Date.now() > fireAt - 1000) throw new Error('the idle measure ran into the firing minute');
      await sleep(fireAt - Date.now() - 500);
      const noisy = await loopUntil(async () => {
        const runs = await scheduledRuns(place, a!.id);
        const finished = (runs.completed ?? 0) + (runs.failed ?? 0) + (runs.canceled ?? 0);
        return finished >= SCHEDULES;
      }, create);
      const runs = await scheduledRuns(place, a!.id);
      if (noisy.timedOut)
        throw new Error(`the runs did not finish in ${MAX_NOISY_SECONDS} s: ${JSON.stringify(runs)}`);

      out(
        `\n${dialect}: ${SCHEDULES} hourly schedules of a crm_pipeline query (${ROWS.toLocaleString('en-US')} deals) in workspace A; the ${SCHEDULES + 1}st create: ${capped}`,
      );
      out('\n| create_contact in workspace B | p50 ms | p95 ms | p99 ms | samples |');
      out('|---|---:|---:|---:|---:|');
      out(`| idle (${SECONDS} s) | ${row(idle)} |`);
      out(
        `| while A's ${SCHEDULES} schedules fire, until their runs finished (${noisy.seconds.toFixed(0)} s) | ${row(noisy.timing)} |`,
      );
      const ratio = noisy.timing.p99 / idle.p99;
      out(
        `p99 ratio ${ratio.toFixed(2)} (target <= 2: ${ratio <= 2 ? 'met' : 'NOT met'}); A's scheduled runs by status ${JSON.stringify(runs)}; load ${os
          .loadavg()
          .map((n) => n.toFixed(1))
          .join(' ')}`,
      );
    } catch (error) {
      for (const message of serviceErrors(place)) out(`service error: ${message}`);
      throw error;
    } finally {
      service.kill();
      await new Promise((resolve) => service.once('exit', resolve));
    }
  } finally {
    await place.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) await biSchedulesBench();
