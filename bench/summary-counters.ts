// GET /v1/workspace (get_workspace_summary) on a large workspace (issue 15, item 2): seeds SUMMARY_ROWS
// contacts, tasks and activities (default 100,000 each; 80% in one workspace, the rest in four others) with
// one INSERT ... SELECT per table and workspace, recomputes the record counters when the tree has them
// (rebuildRecordCounters: the seed writes rows directly), then times SUMMARY_REQUESTS summaries of the big
// workspace through the app, one at a time. SQLite in a temp directory; PostgreSQL in a schema of its own
// when BENCH_DATABASE_URL is set. Run: npx tsx bench/summary-counters.ts
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { createCredential, createWorkspace, updateWorkspace } from '../src/admin/workspace-admin.ts';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { SCOPES } from '../src/core/catalogue.ts';
import { systemClock } from '../src/core/clock.ts';
import { newId } from '../src/core/ids.ts';

const ROWS = Number(process.env.SUMMARY_ROWS ?? 100_000);
const REQUESTS = Number(process.env.SUMMARY_REQUESTS ?? 200);
const URL = process.env.BENCH_DATABASE_URL;
const TASK_STATUSES = ['open', 'completed', 'canceled'];
const ACTIVITY_TYPES = ['note', 'call', 'email', 'meeting', 'agent_action'];

async function place() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'wos-summary-bench-'));
  if (!URL)
    return { env: { WOS_DATA_DIR: dataDir }, drop: async () => fs.rmSync(dataDir, { recursive: true }) };
  const schema = `wos_bench_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: URL });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return {
    env: { WOS_DATA_DIR: dataDir, WOS_DATABASE_URL: URL, WOS_DATABASE_SCHEMA: schema },
    drop: async () => {
      const c = new pg.Client({ connectionString: URL });
      await c.connect();
      await c.query(`drop schema ${schema} cascade`);
      await c.query(`drop schema if exists ${schema}_jobs cascade`);
      await c.end();
      fs.rmSync(dataDir, { recursive: true });
    },
  };
}

/** `n` rows of `table` in one statement: a recursive sequence (both databases) turned into rows. */
function seedRows(table: string, workspaceId: string, n: number, columns: string, values: string) {
  return sql`insert into ${sql.table(table)} (${sql.raw(columns)})
    with recursive seq(i) as (select 1 union all select i + 1 from seq where i < ${n})
    select ${workspaceId}, ${sql.raw(values)} from seq`;
}

const pick = (list: string[]) =>
  `case i % ${list.length} ${list.map((v, k) => `when ${k} then '${v}'`).join(' ')} end`;
const at = `'2026-01-01T00:00:00.000Z'`;

async function main() {
  const where = await place();
  // The seed's statements run for seconds on the service's own pool: no statement timeout.
  const config = loadConfig({
    ...where.env,
    WOS_LOG_LEVEL: 'silent',
    WOS_WORKER: 'off',
    WOS_STATEMENT_TIMEOUT_MS: '0',
  });
  const service = await buildApp({ config, clock: systemClock });
  const db = service.deps.database.db;
  const call = { db, clock: systemClock, requestId: newId('req'), surface: 'cli' as const };
  const workspaces: string[] = [];
  for (const name of ['Big', 'Small 1', 'Small 2', 'Small 3', 'Small 4']) {
    const workspace = await createWorkspace(call, { name });
    // As in bench/scale.ts: no rate limit, so the limiter's own write is not part of the figure.
    await updateWorkspace(call, workspace.id, { rate_limit_per_minute: null });
    workspaces.push(workspace.id);
  }
  const big = workspaces[0]!;
  const key = (await createCredential(call, big, { kind: 'api_key', name: 'bench', scopes: [...SCOPES] }))
    .token;

  let started = performance.now();
  for (const [i, ws] of workspaces.entries()) {
    const n = Math.round(i === 0 ? ROWS * 0.8 : ROWS * 0.05);
    const prefix = `${ws.slice(-6)}_`;
    await seedRows(
      'contacts',
      ws,
      n,
      'workspace_id, id, name, email, created_at, updated_at',
      `'con_${prefix}' || i, 'Contact ' || i, 'c' || i || '@example.com', ${at}, ${at}`,
    ).execute(db);
    await seedRows(
      'tasks',
      ws,
      n,
      'workspace_id, id, title, status, created_at, updated_at',
      `'task_${prefix}' || i, 'Task ' || i, ${pick(TASK_STATUSES)}, ${at}, ${at}`,
    ).execute(db);
    await seedRows(
      'activities',
      ws,
      n,
      'workspace_id, id, type, summary, occurred_at, actor_type, created_at, updated_at',
      `'act_${prefix}' || i, ${pick(ACTIVITY_TYPES)}, 'Activity ' || i, ${at}, 'system', ${at}, ${at}`,
    ).execute(db);
  }
  const seeded = (performance.now() - started) / 1000;
  if (URL) await sql`analyze`.execute(db);

  let rebuilt = 'no record counters in this tree';
  const counters = new globalThis.URL('../src/core/record-counters.ts', import.meta.url);
  if (fs.existsSync(counters)) {
    const { rebuildRecordCounters } = await import(counters.href);
    started = performance.now();
    await rebuildRecordCounters(db);
    rebuilt = `counters rebuilt in ${((performance.now() - started) / 1000).toFixed(1)} s`;
  }

  /** p50 / p95 / max of REQUESTS calls of `url`, one at a time, after 10 unmeasured ones. */
  async function measure(url: string) {
    const times: number[] = [];
    let body = '';
    for (let i = 0; i < REQUESTS + 10; i++) {
      const t = performance.now();
      const res = await service.app.inject({
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${key}` },
      });
      if (res.statusCode !== 200) throw new Error(res.body);
      if (i >= 10) times.push(performance.now() - t);
      body = res.body;
    }
    times.sort((x, y) => x - y);
    const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
    return { body, text: `p50 ${q(0.5)} ms, p95 ${q(0.95)} ms, max ${q(1)} ms` };
  }
  const floor = await measure('/v1/contacts?limit=1');
  const { body, text } = await measure('/v1/workspace');
  const summary = JSON.parse(body).workspace.summary;
  console.log(
    `${URL ? 'PostgreSQL' : 'SQLite'}, ${ROWS.toLocaleString('en-US')} rows per table (80% in the measured workspace), seeded in ${seeded.toFixed(1)} s, ${rebuilt}`,
  );
  console.log(`GET /v1/workspace x${REQUESTS}: ${text}`);
  console.log(`GET /v1/contacts?limit=1 x${REQUESTS} (the floor of any call): ${floor.text}`);
  console.log(
    `contacts ${summary.crm.contacts}, tasks ${JSON.stringify(summary.tasks.by_status)}, activities ${summary.activity.total}`,
  );
  await service.app.close();
  await service.deps.database.close();
  await where.drop();
}

await main();
