// What the record-counter triggers cost a single-row write on PostgreSQL (issue 15, item 2): 3,000 inserts,
// status updates and title updates of tasks on one connection, with the table's triggers disabled and then
// enabled, twice; synchronous_commit off leaves the fsync out. Run:
// BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/counter-trigger-cost.ts
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from '../src/db/migrate.ts';

const URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `wos_tc_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: URL });
await admin.connect();
await admin.query(`create schema ${schema}`);
const pool = new pg.Pool({ connectionString: URL, max: 1, options: `-c search_path=${schema}` });
await migrateToLatest(new Kysely<any>({ dialect: new PostgresDialect({ pool }) }), schema);
const c = await pool.connect();
await c.query('set synchronous_commit = off');
async function run(label: string) {
  const t3: number[][] = [[], [], []];
  const stmts = [
    `insert into tasks (workspace_id, id, title, status, created_at, updated_at) values ('ws_1', $1, 'x', 'open', 'x', 'x')`,
    `update tasks set status = 'completed' where workspace_id = 'ws_1' and id = $1`,
    `update tasks set title = 'y' where workspace_id = 'ws_1' and id = $1`,
  ];
  for (let i = 0; i < 3000; i++) {
    for (const [k, q] of stmts.entries()) {
      const t = performance.now();
      await c.query(q, [`${label}_${i}`]);
      if (i >= 500) t3[k]!.push(performance.now() - t);
    }
  }
  console.log(
    label,
    t3
      .map((t) => {
        t.sort((a, b) => a - b);
        return t[t.length >> 1]!.toFixed(3);
      })
      .join(' / '),
    'ms p50 (insert / status update / title update)',
  );
}
for (let round = 0; round < 2; round++) {
  await c.query('alter table tasks disable trigger user');
  await run(`off${round}`);
  await c.query('alter table tasks enable trigger user');
  await run(`on${round}`);
}
c.release();
await pool.end();
await admin.query(`drop schema ${schema} cascade`);
await admin.end();
