// The PostgreSQL write path (issue 15, item 5), part of `npm run bench` when BENCH_DATABASE_URL is set: the
// audited REST create (with an idempotency key, under a workspace rate limit) side by side with the same
// audited SQL and no service around it (bench/bare-pg-server.ts), 32 connections, a pool of 10 on both; then
// the statements one create sends (bench/pg-round-trips.ts). BENCH_PG_BEFORE=<another checkout (it migrates its
// own schema)> adds that checkout's `wos serve` to every round: before and after a change
// in one run, under the same load, with the paired ratio of their CPU per request (BENCH_PG_TOGETHER=on: both
// loaded at once, each with BENCH_CONNECTIONS).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { createCredential, createWorkspace, updateWorkspace } from '../src/admin/workspace-admin.ts';
import { loadConfig } from '../src/config.ts';
import { SCOPES } from '../src/core/catalogue.ts';
import { systemClock } from '../src/core/clock.ts';
import { newId } from '../src/core/ids.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { newPlace, type Place, PORT, serviceErrors, startService } from './analytics-service.ts';
import { countRoundTrips } from './pg-round-trips.ts';
import { spawnReady } from './spawn-ready.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const BARE_PORT = 18082;
/** Alternating rounds of the two runs (BENCH_PG_ROUNDS, default 3). */
const ROUNDS = Number(process.env.BENCH_PG_ROUNDS ?? 3);
const BEFORE = process.env.BENCH_PG_BEFORE;
/** BENCH_PG_TOGETHER=on: this checkout's and BENCH_PG_BEFORE's runs go at the same time, not in turns. */
const TOGETHER = process.env.BENCH_PG_TOGETHER === 'on';
const BEFORE_PORT = 18083;
/** High enough never to refuse a call of the run, so every create still pays for its rate-limit count. */
const RATE_LIMIT = 1_000_000_000;

const OPERATOR = 'wos_op_bench-operator-token-000000000000000000000000';

/** A migrated schema with one workspace (rate limited) and an all-scopes API key. */
async function seed(place: Place) {
  const database = openDatabase(loadConfig({ ...place.env, WOS_ADMIN_TOKEN: OPERATOR }));
  await migrateToLatest(database.db, place.schema);
  const call = { db: database.db, clock: systemClock, requestId: newId('req'), surface: 'cli' as const };
  const workspace = await createWorkspace(call, { name: 'Bench writes' });
  await updateWorkspace(call, workspace.id, { rate_limit_per_minute: RATE_LIMIT });
  const key = (
    await createCredential(call, workspace.id, { kind: 'api_key', name: 'bench', scopes: [...SCOPES] })
  ).token;
  await database.close();
  return { id: workspace.id, key };
}

/**
 * The same through a running service's operator API: another checkout migrates its schema itself (its
 * migrations may differ from this one's) and its key needs only crm:write.
 */
async function seedOverAdminApi(base: string) {
  const call = async (method: string, url: string, body: unknown) => {
    const response = await fetch(`${base}/admin/v1${url}`, {
      method,
      headers: { authorization: `Bearer ${OPERATOR}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Record<string, any>;
  };
  const { workspace } = await call('POST', '/workspaces', { name: 'Bench writes' });
  await call('PATCH', `/workspaces/${workspace.id}`, { rate_limit_per_minute: RATE_LIMIT });
  const body = { kind: 'api_key', name: 'bench', scopes: ['crm:write'] };
  const { token } = await call('POST', `/workspaces/${workspace.id}/credentials`, body);
  return { id: workspace.id as string, key: token as string };
}

/** Every request carries a new idempotency key, so every one is a create (none a replay). */
/** CPU seconds a process has used (Linux /proc; 0 elsewhere): the server's own cost, whatever the load. */
function cpuSeconds(pid: number | undefined): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function load(
  name: string,
  url: string,
  headers: Record<string, string>,
  options: { pid?: number; duration?: number } = {},
) {
  const cpuBefore = cpuSeconds(options.pid);
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: options.duration ?? SECONDS,
    requests: [
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        setupRequest: (request) => ({
          ...request,
          body: JSON.stringify({
            name: 'Bench Contact',
            email: 'bench@example.com',
            idempotency_key: randomBytes(12).toString('hex'),
          }),
        }),
      },
    ],
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${name}: ${failures} failed requests`);
  const cpuUs = ((cpuSeconds(options.pid) - cpuBefore) / result.requests.total) * 1e6;
  return { name, rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, cpuUs };
}

export async function postgresWriteBench(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-bench-pg-'));
  const barePlace = await newPlace(dir);
  const servicePlace = await newPlace(dir);
  const beforePlace = BEFORE ? await newPlace(dir) : undefined;
  const children: { pid?: number; kill(signal: NodeJS.Signals): boolean }[] = [];
  try {
    const bareWorkspace = await seed(barePlace);
    const workspace = await seed(servicePlace);
    children.push(
      await spawnReady(
        ['--import', 'tsx', 'bench/bare-pg-server.ts'],
        {
          PORT: String(BARE_PORT),
          BENCH_DATABASE_URL: barePlace.env.WOS_DATABASE_URL!,
          BENCH_SCHEMA: barePlace.schema!,
          BENCH_WORKSPACE_ID: bareWorkspace.id,
        },
        `http://127.0.0.1:${BARE_PORT}/ready`,
      ),
    );
    children.push(await startService(servicePlace));
    if (beforePlace) {
      const env = {
        ...beforePlace.env,
        WOS_ADMIN_TOKEN: OPERATOR,
        WOS_LOG_LEVEL: 'warn',
        PORT: String(BEFORE_PORT),
      };
      const readyUrl = `http://127.0.0.1:${BEFORE_PORT}/readyz`;
      children.push(await spawnReady(['bin/wos.js', 'serve'], env, readyUrl, BEFORE));
    }
    const before = beforePlace && (await seedOverAdminApi(`http://127.0.0.1:${BEFORE_PORT}`));
    const beforeUrl = `http://127.0.0.1:${BEFORE_PORT}/v1/contacts`;
    const bareUrl = `http://127.0.0.1:${BARE_PORT}/contacts`;
    const restUrl = `http://127.0.0.1:${PORT}/v1/contacts`;
    const auth = { authorization: `Bearer ${workspace.key}` };
    // A warm-up of each (JIT, pools, caches), then rounds that alternate, so that both sides see the same
    // machine load.
    const [barePid, servicePid, beforePid] = children.map((child) => child.pid);
    const beforeAuth = { authorization: `Bearer ${before?.key}` };
    await load('warm-up', bareUrl, {}, { duration: 3 });
    await load('warm-up', restUrl, auth, { duration: 3 });
    if (before) await load('warm-up', beforeUrl, beforeAuth, { duration: 3 });
    const rounds = [];
    for (let round = 0; round < ROUNDS; round++) {
      const bare = await load('bare audited SQL on PostgreSQL', bareUrl, {}, { pid: barePid });
      const runRest = () =>
        load('create_contact over REST on PostgreSQL', restUrl, auth, { pid: servicePid }).catch((error) => {
          throw new Error(`${error.message}; service errors: ${serviceErrors(servicePlace).join(' | ')}`);
        });
      const runBefore = () =>
        load(`the same, ${BEFORE}`, beforeUrl, beforeAuth, { pid: beforePid }).catch((error) => {
          throw new Error(`${error.message}; service errors: ${serviceErrors(beforePlace!).join(' | ')}`);
        });
      if (before && TOGETHER) {
        // Both under load at once: the machine's other load changes both rounds alike.
        const [rest, beforeRow] = await Promise.all([runRest(), runBefore()]);
        rounds.push({ bare, rest, before: beforeRow });
        continue;
      }
      // The two checkouts take turns going first.
      const earlier = before && round % 2 === 1 ? await runBefore() : undefined;
      const rest = await runRest();
      const later = before && round % 2 === 0 ? await runBefore() : undefined;
      rounds.push({ bare, rest, before: earlier ?? later });
    }
    process.stdout.write(
      `\nPostgreSQL write path: ${SECONDS} s per run, ${CONNECTIONS} connections, pool 10, every create with a ` +
        'new idempotency key, the workspace rate limited\n\n' +
        '| round | run | req/s | p50 ms | p99 ms | req/s vs bare | p99 vs bare | server CPU µs/req |\n' +
        '|---|---|---:|---:|---:|---:|---:|---:|\n',
    );
    rounds.forEach(({ bare, rest, before }, round) => {
      for (const row of before ? [bare, rest, before] : [bare, rest]) {
        const rps = row === bare ? '1.00' : (row.rps / bare.rps).toFixed(2);
        const p99 = row === bare ? '1.00' : (row.p99 / Math.max(bare.p99, 1)).toFixed(2);
        process.stdout.write(
          `| ${round + 1} | ${row.name} | ${row.rps.toFixed(0)} | ${row.p50} | ${row.p99} | ${rps} | ${p99} | ` +
            `${row.cpuUs.toFixed(0)} |\n`,
        );
      }
    });
    const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const rps = median(rounds.map(({ bare, rest }) => rest.rps / bare.rps));
    const p99 = median(rounds.map(({ bare, rest }) => rest.p99 / Math.max(bare.p99, 1)));
    process.stdout.write(
      `targets (median of the rounds): REST create >= 0.80x the bare audited SQL (${rps.toFixed(2)}), ` +
        `p99 <= 1.5x its p99 (${p99.toFixed(2)})` +
        (before && TOGETHER ? ' (not the targets: two services shared the machine in each round)\n' : '\n'),
    );
    if (before) {
      const cpu = median(rounds.map((r) => r.rest.cpuUs / r.before!.cpuUs));
      process.stdout.write(
        `server CPU µs/req, this checkout / ${BEFORE} (median of the rounds): ${cpu.toFixed(3)}\n`,
      );
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
  }
  const trips = await countRoundTrips(barePlace);
  process.stdout.write(
    `\none REST create with an idempotency key (after a warm-up one), statements sent to PostgreSQL: ` +
      `${trips.statements.length} in ${trips.roundTrips} round trips\n` +
      `${trips.statements.map((s) => `  ${s}`).join('\n')}\n`,
  );
  await barePlace.drop();
  await servicePlace.drop();
  await beforePlace?.drop();
  fs.rmSync(dir, { recursive: true, force: true });
}

if (import.meta.url === `file://${process.argv[1]}`) await postgresWriteBench();
