// `npm run bench:scale` (issue 15): seeds contacts, tasks and activities (SCALE_ROWS of each, default
// 100,000; 80% in one workspace, the rest in four others) and SCALE_AUDIT_ROWS audit events (default 3x
// rows) by writing rows directly, then measures through the real API, one request at a time: first page,
// a deep page, searches (common, rare, no match), the workspace summary, a record's history, a create.
// SQLite by default; PostgreSQL when BENCH_DATABASE_URL is set. SCALE_PLANS=0 skips the query plans.
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createCredential, createWorkspace, updateWorkspace } from '../src/admin/workspace-admin.ts';
import { loadConfig } from '../src/config.ts';
import { SCOPES } from '../src/core/catalogue.ts';
import { systemClock } from '../src/core/clock.ts';
import { newId } from '../src/core/ids.ts';
import { createSearchIndexes } from '../src/core/search-index.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { activityRecord } from '../src/modules/activity-log/activity-records.ts';
import { contactRecord } from '../src/modules/crm/crm-records.ts';
import { DATABASE_URL, newPlace, type Place } from './analytics-service.ts';
import {
  api,
  deepCursor,
  noisyNeighbour,
  type SearchCase,
  searchPlans,
  type Timing,
  timed,
} from './scale-measure.ts';
import { seedScale, TERMS } from './scale-seed.ts';

const ROWS = Number(process.env.SCALE_ROWS ?? 100_000);
const AUDIT_ROWS = Number(process.env.SCALE_AUDIT_ROWS ?? 3 * ROWS);
const PLANS = process.env.SCALE_PLANS !== '0';
const PORT = Number(process.env.SCALE_PORT ?? 18093);
const OPERATOR = 'wos_op_bench-operator-token-000000000000000000000000';

const NEIGHBOUR_SECONDS = Number(process.env.SCALE_NEIGHBOUR_SECONDS ?? 15);

/** Seeding, index builds and counter rebuilds run longer than an API call's statement timeout. */
const maintenanceConfig = (place: Place) =>
  loadConfig({ ...place.env, WOS_ADMIN_TOKEN: OPERATOR, WOS_STATEMENT_TIMEOUT_MS: '0' });

const count = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (n: number) => (n >= 100 ? count(n) : n.toFixed(1));

async function prepareWorkspaces(place: Place) {
  const database = openDatabase(maintenanceConfig(place));
  await migrateToLatest(database.db, place.schema);
  const call = { db: database.db, clock: systemClock, requestId: newId('req'), surface: 'cli' as const };
  const made: { id: string; key: string }[] = [];
  for (const name of ['Big', 'Small 1', 'Small 2', 'Small 3', 'Small 4']) {
    const workspace = await createWorkspace(call, { name });
    await updateWorkspace(call, workspace.id, { rate_limit_per_minute: null });
    const key = (
      await createCredential(call, workspace.id, { kind: 'api_key', name: 'bench', scopes: [...SCOPES] })
    ).token;
    made.push({ id: workspace.id, key });
  }
  await database.close();
  return made;
}

/** Counters of get_workspace_summary (issue 15, item 2), when that code is there: the seed bypassed them. */
async function rebuildCounters(place: Place): Promise<string> {
  const file = new URL('../src/core/record-counters.ts', import.meta.url);
  if (!fs.existsSync(file)) return 'no record counters in this tree';
  const counters = (await import(file.href)) as { rebuildRecordCounters?: (db: unknown) => Promise<unknown> };
  if (!counters.rebuildRecordCounters) return 'no rebuildRecordCounters in this tree';
  const database = openDatabase(maintenanceConfig(place));
  const started = performance.now();
  await counters.rebuildRecordCounters(database.db);
  await database.close();
  return `record counters rebuilt in ${((performance.now() - started) / 1000).toFixed(1)} s`;
}

/** PostgreSQL: the seed dropped the GIN indexes of the seeded tables; built again here, then analyzed. */
async function rebuildSearchIndexes(place: Place) {
  const database = openDatabase(maintenanceConfig(place));
  await createSearchIndexes(database.db, {
    contacts: contactRecord.searchColumns,
    activities: activityRecord.searchColumns,
  });
  await database.close();
}

async function startService(place: Place): Promise<ChildProcess> {
  const log = fs.openSync(path.join(path.dirname(place.file), 'service.log'), 'a');
  const child = spawn(process.execPath, ['bin/wos.js', 'serve'], {
    env: {
      ...process.env,
      ...place.env,
      WOS_ADMIN_TOKEN: OPERATOR,
      WOS_LOG_LEVEL: 'warn',
      PORT: String(PORT),
    },
    stdio: ['ignore', log, 'inherit'],
  });
  for (let attempt = 0; attempt < 600; attempt++) {
    if (child.exitCode !== null) throw new Error(`wos serve exited with ${child.exitCode}`);
    if (
      await fetch(`http://127.0.0.1:${PORT}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill();
  throw new Error('wos serve did not become ready');
}

async function measure(key: string, deepId: string, historyTarget: string) {
  const { get, post } = api(`http://127.0.0.1:${PORT}`, key);
  const first = await get('/v1/contacts?limit=25');
  const deep = deepCursor(first.next_cursor, deepId);
  const rows: [string, Timing][] = [];
  const read = async (label: string, url: string) =>
    rows.push([label, await timed(async () => void (await get(url)))]);
  await read('`GET /v1/contacts` (first page)', '/v1/contacts?limit=25');
  await read(
    '`GET /v1/contacts?cursor=` (deep page, middle of the list)',
    `/v1/contacts?limit=25&cursor=${deep}`,
  );
  await read('`GET /v1/tasks` (first page)', '/v1/tasks?limit=25');
  await read('`GET /v1/activities` (first page)', '/v1/activities?limit=25');
  for (const [table, common] of [
    ['contacts', TERMS.contactsCommon],
    ['activities', TERMS.activitiesCommon],
  ] as const) {
    await read(`\`GET /v1/${table}?query=<common match>\` ("${common}")`, `/v1/${table}?query=${common}`);
    await read(
      `\`GET /v1/${table}?query=<rare match>\` ("${TERMS.rare}")`,
      `/v1/${table}?query=${TERMS.rare}`,
    );
    await read(`\`GET /v1/${table}?query=<no match>\` ("${TERMS.none}")`, `/v1/${table}?query=${TERMS.none}`);
  }
  await read('`GET /v1/workspace` (get_workspace_summary)', '/v1/workspace');
  await read(
    '`GET /v1/history` (a contact with 1,000+ audit events)',
    `/v1/history?target_type=contact&target_id=${historyTarget}`,
  );
  rows.push([
    '`POST /v1/contacts` (create)',
    await timed(async (i) => void (await post('/v1/contacts', { name: `Bench Create ${i} ${Date.now()}` }))),
  ]);
  return rows;
}

async function main() {
  const database = DATABASE_URL ? 'PostgreSQL' : 'SQLite';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-bench-scale-'));
  const place = await newPlace(dir);
  let service: ChildProcess | undefined;
  try {
    const workspaces = await prepareWorkspaces(place);
    const target = { file: place.file, url: DATABASE_URL, schema: place.schema };
    let started = performance.now();
    const seeded = await seedScale(
      target,
      workspaces.map((w) => w.id),
      ROWS,
      AUDIT_ROWS,
    );
    if (place.schema) await rebuildSearchIndexes(place);
    const seedSeconds = (performance.now() - started) / 1000;
    console.log(
      `seeded ${count(ROWS)} rows x 3 tables + ${count(AUDIT_ROWS)} audit events in ${seedSeconds.toFixed(0)} s`,
    );
    console.log(await rebuildCounters(place));
    service = await startService(place);
    const deepId = seeded.contactIds[Math.floor(seeded.contactIds.length / 2)]!;
    started = performance.now();
    const rows = await measure(workspaces[0]!.key, deepId, seeded.historyTarget);
    const size = fs.existsSync(place.file)
      ? ` (SQLite file ${count(fs.statSync(place.file).size / 2 ** 20)} MiB)`
      : '';
    console.log(`\n${database}, ${count(ROWS)} rows per table, ${count(AUDIT_ROWS)} audit events${size}\n`);
    console.log(`| request (p50 / p95 ms, samples) | ${database} ${count(ROWS)} |`);
    console.log('|---|---|');
    for (const [label, t] of rows) console.log(`| ${label} | ${ms(t.p50)} / ${ms(t.p95)} (${t.samples}) |`);
    console.log(`\n(measured in ${((performance.now() - started) / 1000).toFixed(0)} s)`);
    if (NEIGHBOUR_SECONDS > 0) {
      const n = await noisyNeighbour(`http://127.0.0.1:${PORT}`, workspaces[0]!.key, workspaces[1]!.key, {
        seconds: NEIGHBOUR_SECONDS,
      });
      const p = (t: { p50: number; p95: number; p99: number; samples: number }) =>
        `${ms(t.p50)} / ${ms(t.p95)} / ${ms(t.p99)} (${t.samples})`;
      console.log(
        `\n## Noisy neighbour (${database}, ${count(ROWS)} rows): workspace B (small) one request at a time, ` +
          `alone, then while 10 clients loop workspace A's most expensive reads\n`,
      );
      console.log("| workspace B, p50 / p95 / p99 ms (samples) | alone | A's 10 clients running |");
      console.log('|---|---|---|');
      console.log(`| \`POST /v1/contacts\` (create) | ${p(n.idle.create)} | ${p(n.noisy.create)} |`);
      console.log(`| \`GET /v1/contacts\` (first page) | ${p(n.idle.list)} | ${p(n.noisy.list)} |`);
      console.log(`\nA's answers meanwhile: ${JSON.stringify(n.statuses)}; load average ${n.loadAverage}`);
    }
    if (PLANS) {
      const cases: SearchCase[] = (['contacts', 'activities'] as const).flatMap((table) => [
        {
          table,
          label: 'common match',
          term: table === 'contacts' ? TERMS.contactsCommon : TERMS.activitiesCommon,
        },
        { table, label: 'rare match', term: TERMS.rare },
        { table, label: 'no match', term: TERMS.none },
      ]);
      console.log(`\n## Query plans (${database}, ${count(ROWS)} rows)\n`);
      console.log(await searchPlans(target, workspaces[0]!.id, cases));
    }
  } finally {
    service?.kill();
    if (process.env.SCALE_KEEP !== '1') {
      await place.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    } else console.log(`kept: ${JSON.stringify(place.env)}`);
  }
}

await main();
