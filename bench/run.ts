// `npm run bench`: starts the service on SQLite in a child process, loads it over loopback with autocannon,
// and prints throughput and latency next to a bare Fastify + SQLite insert yardstick; with BENCH_DATABASE_URL,
// also the PostgreSQL write path beside its own yardstick (bench/postgres-writes.ts); last, the size of tools/list,
// whole and per profile (bench/tool-list.ts).
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
import { consoleFirstLoad } from '../src/surfaces/console/console-build.ts';
import { analyticsBench } from './analytics.ts';
import { biBench } from './bi.ts';
import { deliveryDelays, startSink } from './outbox-lag.ts';
import { postgresWriteBench } from './postgres-writes.ts';
import { spawnReady } from './spawn-ready.ts';
import { toolListBench } from './tool-list.ts';
import { vectorsBench } from './vectors.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
/** Sized so the neighbour's scan alone takes about 500 ms on the machine of docs/performance.md. */
const NEIGHBOUR_CONTACTS = Number(process.env.BENCH_NEIGHBOUR_CONTACTS ?? 200_000);
/**
 * The neighbour's most expensive list: a text query that matches nothing scans every contact it has. It is a
 * heavy read (search_contacts with a query), so it runs on the heavy-read connections, off the main thread.
 */
const NEIGHBOUR_LIST = '/v1/contacts?query=no-such-contact&limit=100';
const OPERATOR = 'wos_op_bench-operator-token-000000000000000000000000';

async function load(name: string, options: autocannon.Options) {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0) throw new Error(`${name}: ${failures} failed requests`);
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
  };
}

async function seed(dataDir: string) {
  const config = loadConfig({ WOS_DATA_DIR: dataDir, WOS_ADMIN_TOKEN: OPERATOR });
  const database = openDatabase(config);
  await migrateToLatest(database.db);
  const call = { db: database.db, clock: systemClock, requestId: newId('req'), surface: 'cli' as const };
  const workspace = await createWorkspace(call, { name: 'Bench' });
  await updateWorkspace(call, workspace.id, { rate_limit_per_minute: null });
  const apiKey = (
    await createCredential(call, workspace.id, { kind: 'api_key', name: 'bench', scopes: [...SCOPES] })
  ).token;
  const mcpToken = (
    await createCredential(call, workspace.id, { kind: 'mcp_token', name: 'bench', scopes: [...SCOPES] })
  ).token;
  const now = new Date().toISOString();
  const neighbour = await createWorkspace(call, { name: 'Noisy neighbour' });
  await updateWorkspace(call, neighbour.id, { rate_limit_per_minute: null });
  const neighbourKey = (
    await createCredential(call, neighbour.id, { kind: 'api_key', name: 'bench', scopes: [...SCOPES] })
  ).token;
  const hooked = await createWorkspace(call, { name: 'Webhook subscriber' });
  await updateWorkspace(call, hooked.id, { rate_limit_per_minute: null });
  const hookedKey = (
    await createCredential(call, hooked.id, { kind: 'api_key', name: 'bench', scopes: [...SCOPES] })
  ).token;
  for (let start = 0; start < NEIGHBOUR_CONTACTS; start += 500) {
    const rows = Array.from({ length: Math.min(500, NEIGHBOUR_CONTACTS - start) }, (_, i) => ({
      workspace_id: neighbour.id,
      id: newId('con'),
      name: `Neighbour contact ${start + i}`,
      email: `contact${start + i}@neighbour.example`,
      phone: null,
      company_id: null,
      company_name: `Company ${(start + i) % 1000}`,
      notes: 'Seeded for the noisy-neighbour benchmark',
      created_at: now,
      updated_at: now,
    }));
    await database.db.insertInto('contacts').values(rows).execute();
  }
  const statuses = ['open', 'completed', 'canceled'] as const;
  for (let start = 0; start < TASKS; start += 500) {
    const rows = Array.from({ length: Math.min(500, TASKS - start) }, (_, i) => ({
      workspace_id: workspace.id,
      id: newId('tsk'),
      title: `Seeded task ${start + i}`,
      description: null,
      status: statuses[(start + i) % 3]!,
      due_at: null,
      assignee_id: `agent-${(start + i) % 50}`,
      related_resource_type: null,
      related_resource_id: null,
      completed_note: null,
      completed_at: null,
      created_at: now,
      updated_at: now,
    }));
    await database.db.insertInto('tasks').values(rows).execute();
  }
  await database.close();
  return { apiKey, mcpToken, neighbourKey, hooked: { id: hooked.id, key: hookedKey } };
}

async function main() {
  // The console's first load: the JavaScript and CSS /console fetches before it can render (budget 120 KB).
  const first = await consoleFirstLoad();
  process.stdout.write(
    `console first load (${first.files.join(' + ')}): ${(first.gzip / 1024).toFixed(1)} KB gzipped, ` +
      `${(first.raw / 1024).toFixed(1)} KB raw; budget 120 KB gzipped\n`,
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-bench-'));
  const seeded = Date.now();
  const { apiKey, mcpToken, neighbourKey, hooked } = await seed(path.join(dir, 'service'));
  const sink = await startSink();
  process.stdout.write(
    `seeded ${TASKS} tasks and ${NEIGHBOUR_CONTACTS} neighbour contacts in ${((Date.now() - seeded) / 1000).toFixed(1)} s\n`,
  );

  const bare = await spawnReady(
    ['--import', 'tsx', 'bench/bare-server.ts'],
    { BENCH_DIR: path.join(dir, 'bare'), PORT: '18081' },
    'http://127.0.0.1:18081/ready',
  );
  // BENCH_CPU_PROF=<dir>: the service writes a CPU profile there when it stops (where a call spends its time).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : [];
  // BENCH_SQL_PROF=<dir>: and the time of each SQLite statement (bench/sql-profile.mjs).
  if (process.env.BENCH_SQL_PROF) profile.push('--import', path.resolve('bench/sql-profile.mjs'));
  const service = await spawnReady(
    [...profile, 'bin/wos.js', 'serve'],
    {
      WOS_DATA_DIR: path.join(dir, 'service'),
      WOS_ADMIN_TOKEN: OPERATOR,
      WOS_LOG_LEVEL: 'warn',
      PORT: '18080',
      // The webhook run delivers to a local receiver on a random port.
      WOS_WEBHOOK_ALLOW_PRIVATE: 'true',
      WOS_OUTBOUND_ALLOWED_PORTS: String(sink.port),
    },
    'http://127.0.0.1:18080/readyz',
  );
  const svc = 'http://127.0.0.1:18080';
  const json = { 'content-type': 'application/json' };
  try {
    const contact = JSON.stringify({ name: 'Bench Contact', email: 'bench@example.com' });
    const yardstick = await load('bare Fastify + one SQLite insert', {
      url: 'http://127.0.0.1:18081/contacts',
      method: 'POST',
      headers: json,
      body: contact,
    });
    const rest = await load('create_contact over REST (audited)', {
      url: `${svc}/v1/contacts`,
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${apiKey}` },
      body: contact,
    });
    const mcp = await load('create_contact over MCP (audited)', {
      url: `${svc}/mcp`,
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${mcpToken}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'create_contact', arguments: { name: 'Bench Contact', email: 'bench@example.com' } },
      }),
    });
    const list = await load(`list_tasks over REST (${TASKS} tasks)`, {
      url: `${svc}/v1/tasks?status=open&limit=25`,
      headers: { authorization: `Bearer ${apiKey}` },
    });
    const neighbourRequest = {
      url: `${svc}${NEIGHBOUR_LIST}`,
      headers: { authorization: `Bearer ${neighbourKey}` },
    };
    const neighbourAlone = await load('neighbour alone: list_contacts full scan', {
      ...neighbourRequest,
      connections: 1,
    });
    // Workspace A creates contacts while workspace B runs its most expensive list in a loop.
    const [noisy, neighbourBusy] = await Promise.all([
      load('create_contact over REST, neighbour scanning', {
        url: `${svc}/v1/contacts`,
        method: 'POST',
        headers: { ...json, authorization: `Bearer ${apiKey}` },
        body: contact,
      }),
      load('neighbour during that run', { ...neighbourRequest, connections: 1 }),
    ]);
    // Workspace C has a webhook endpoint subscribed to contact.created: the relay turns every create into a
    // delivery, which the worker sends to the local receiver.
    const endpoint = await fetch(`${svc}/v1/webhooks`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${hooked.key}` },
      body: JSON.stringify({ url: `http://127.0.0.1:${sink.port}/hook`, event_types: ['contact.created'] }),
    });
    if (endpoint.status !== 201)
      throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);
    const hookedRun = await load('create_contact over REST, webhook subscribed', {
      url: `${svc}/v1/contacts`,
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${hooked.key}` },
      body: contact,
    });
    const relay = await deliveryDelays(path.join(dir, 'service', 'wos.sqlite'), hooked.id);
    const rows = [yardstick, rest, mcp, list, noisy, hookedRun];
    process.stdout.write(
      `\n${SECONDS} s per run, ${CONNECTIONS} connections, ${os.cpus().length} cores, Node ${process.version}\n\n`,
    );
    process.stdout.write('| run | req/s | p50 ms | p99 ms | vs bare insert |\n|---|---:|---:|---:|---:|\n');
    for (const row of rows) {
      const ratio = row === yardstick ? '1.00' : (row.rps / yardstick.rps).toFixed(2);
      process.stdout.write(`| ${row.name} | ${row.rps.toFixed(0)} | ${row.p50} | ${row.p99} | ${ratio} |\n`);
    }
    process.stdout.write(
      `\nnoisy neighbour: workspace B loops a heavy read, GET ${NEIGHBOUR_LIST} over ${NEIGHBOUR_CONTACTS} contacts ` +
        `(alone: p50 ${neighbourAlone.p50} ms, ${neighbourAlone.rps.toFixed(1)} req/s; during the create run: ` +
        `${neighbourBusy.total} requests); workspace A create_contact p99 ${noisy.p99} ms against ${rest.p99} ms idle ` +
        `(${(noisy.p99 / Math.max(rest.p99, 1)).toFixed(1)}x; target at most 2x)\n`,
    );
    process.stdout.write(
      `\noutbox: commit to webhook delivery enqueued (event time to delivery row, ${relay.count} deliveries of the ` +
        `webhook run): p50 ${relay.p50} ms, p99 ${relay.p99} ms\n`,
    );
    process.stdout.write(
      `targets: REST create >= 0.40 of bare insert (${(rest.rps / yardstick.rps).toFixed(2)}); list_tasks p99 < 20 ms (${list.p99} ms)\n`,
    );
    await toolListBench(svc, mcpToken);
  } finally {
    bare.kill('SIGTERM');
    service.kill('SIGTERM');
    await sink.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

await main();
// The PostgreSQL write path (issue 15, item 5) when BENCH_DATABASE_URL names a database.
if (process.env.BENCH_DATABASE_URL) await postgresWriteBench();
// Application events (issue 11), also `npm run bench:analytics`; BENCH_ANALYTICS=off leaves them out.
if (process.env.BENCH_ANALYTICS !== 'off') await analyticsBench();
// Custom BI at scale (issue 12, item 11), also `npm run bench:bi`; BENCH_BI=off leaves it out.
if (process.env.BENCH_BI !== 'off') await biBench();
// Vector collections (issue 14, item 5), also `npm run bench:vectors`; BENCH_VECTORS=off leaves them out.
if (process.env.BENCH_VECTORS !== 'off') await vectorsBench();
