// The measuring side of `npm run bench:scale`: requests through the real API one at a time (p50/p95), and
// the query plans of the searches, before (the LIKE scan the service used to run) and after (the queries
// the search helper runs now, captured from the store function itself).
import SQLite from 'better-sqlite3';
import { type CompiledQuery, Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { matchesText, pageRequest } from '../src/core/pagination.ts';
import { activityRecord } from '../src/modules/activity-log/activity-records.ts';
import { searchActivities } from '../src/modules/activity-log/activity-store.ts';
import { contactRecord } from '../src/modules/crm/crm-records.ts';
import { searchContacts } from '../src/modules/crm/crm-store.ts';

const percentile = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)] ?? 0;

export interface Timing {
  p50: number;
  p95: number;
  samples: number;
}

/** Samples per request (SCALE_SAMPLES, default 40) and the seconds after which fewer will do (default 30). */
const MAX_SAMPLES = Number(process.env.SCALE_SAMPLES ?? 40);
const SAMPLE_SECONDS = Number(process.env.SCALE_SAMPLE_SECONDS ?? 30);

/**
 * One request at a time: two warm-up calls, then at least `min` samples, up to MAX_SAMPLES or
 * SAMPLE_SECONDS. `call` gets the sample's index (creates need a new body each time) and must throw on a
 * failed response. A p95 of 40 samples is their second slowest: set SCALE_SAMPLES higher for a steadier one.
 */
export async function timed(call: (i: number) => Promise<void>, min = 20): Promise<Timing> {
  await call(-2);
  await call(-1);
  const times: number[] = [];
  const started = Date.now();
  while (
    times.length < MAX_SAMPLES &&
    !(times.length >= min && Date.now() - started > SAMPLE_SECONDS * 1000)
  ) {
    const begun = performance.now();
    await call(times.length);
    times.push(performance.now() - begun);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5), p95: percentile(times, 0.95), samples: times.length };
}

export function api(base: string, key: string) {
  const send = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await response.json()) as Record<string, any>;
    if (response.status >= 300)
      throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    get: (path: string) => send('GET', path),
    post: (path: string, body: unknown) => send('POST', path, body),
  };
}

/** A cursor pointing after `id`: the service's own cursor of that list, with its key swapped. */
export function deepCursor(issued: string, id: string): string {
  const payload = JSON.parse(Buffer.from(issued, 'base64url').toString('utf8'));
  return Buffer.from(JSON.stringify({ ...payload, k: [id] })).toString('base64url');
}

/** A read-only Kysely over the bench database that records every query it runs. */
export function recordingDb(target: { file: string; url?: string; schema?: string }) {
  const queries: CompiledQuery[] = [];
  const dialect = target.url
    ? new PostgresDialect({
        pool: new pg.Pool({
          connectionString: target.url,
          max: 1,
          options: `-c search_path=${target.schema}`,
        }),
      })
    : new SqliteDialect({ database: new SQLite(target.file, { readonly: true }) });
  const db = new Kysely<any>({
    dialect,
    log: (event) => {
      if (event.level === 'query') queries.push(event.query);
    },
  });
  return { db, queries };
}

export async function explain(db: Kysely<any>, postgres: boolean, query: CompiledQuery): Promise<string> {
  const prefix = postgres ? 'explain (analyze, costs off, timing off, summary off)' : 'explain query plan';
  const rows = (await db.executeQuery({ ...query, sql: `${prefix} ${query.sql}`, query: query.query }))
    .rows as any[];
  return rows
    .map((r) => (postgres ? r['QUERY PLAN'] : `${'  '.repeat(r.parent ? 1 : 0)}${r.detail}`))
    .join('\n');
}

const SEARCH_COLUMNS = { contacts: contactRecord.searchColumns, activities: activityRecord.searchColumns };

export interface SearchCase {
  table: 'contacts' | 'activities';
  label: string;
  term: string;
}

/**
 * For each search: the plan and time of the LIKE scan of before (first page, in the database, no HTTP), and
 * the plans of every query the store function runs now. Printed for docs/performance.md.
 */
export async function searchPlans(
  target: { file: string; url?: string; schema?: string },
  workspaceId: string,
  cases: SearchCase[],
): Promise<string> {
  const postgres = Boolean(target.url);
  const { db, queries } = recordingDb(target);
  const out: string[] = [];
  for (const { table, label, term } of cases) {
    const old = db
      .selectFrom(table)
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where(matchesText(SEARCH_COLUMNS[table], term))
      .orderBy('id', 'desc')
      .limit(26);
    const started = performance.now();
    await old.execute();
    const oldMs = performance.now() - started;
    out.push(
      `### ${table}, ${label} ("${term}")`,
      '',
      `Before (${oldMs.toFixed(0)} ms in the database):`,
      '```',
    );
    out.push(await explain(db, postgres, old.compile()), '```');
    queries.length = 0;
    const request = pageRequest(table === 'contacts' ? 'search_contacts' : 'search_activity', {
      query: term,
    });
    if (table === 'contacts') await searchContacts(db, workspaceId, { query: term }, request);
    else await searchActivities(db, workspaceId, { query: term }, request);
    const run = [...queries];
    out.push('After:', '```');
    for (const query of run) {
      out.push(`-- ${query.sql.replace(/\s+/g, ' ').slice(0, 400)}`);
      out.push(await explain(db, postgres, query));
    }
    out.push('```', '');
  }
  await sql`select 1`.execute(db);
  await db.destroy();
  return out.join('\n');
}

/** p50, p95 and p99 of one client's requests, sent one after another for `seconds`. */
export interface LoopTiming {
  p50: number;
  p95: number;
  p99: number;
  samples: number;
}

/** `call` one request after another for `seconds`, or until `stop` says so (checked before each request). */
export async function loopFor(
  seconds: number,
  call: (i: number) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<LoopTiming> {
  const times: number[] = [];
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until && !stop()) {
    const begun = performance.now();
    await call(times.length);
    times.push(performance.now() - begun);
  }
  times.sort((a, b) => a - b);
  return {
    p50: percentile(times, 0.5),
    p95: percentile(times, 0.95),
    p99: percentile(times, 0.99),
    samples: times.length,
  };
}

/** Workspace A's most expensive reads: short-term scans (heavy), an indexed no-match search, the summary. */
export const EXPENSIVE_READS = [
  '/v1/contacts?query=zq&limit=100',
  '/v1/activities?query=zq&limit=100',
  '/v1/contacts?query=zyxwvut&limit=100',
  '/v1/workspace',
];

export interface NeighbourFigures {
  idle: { create: LoopTiming; list: LoopTiming };
  noisy: { create: LoopTiming; list: LoopTiming };
  /** Answers A's clients got while B was measured, by HTTP status. */
  statuses: Record<string, number>;
  loadAverage: string;
}

/**
 * Issue 15, item 3: workspace B's create and first page, one request at a time, first alone, then while
 * `clients` clients loop workspace A's most expensive reads (a 429 or 504 there is counted, not an error).
 */
export async function noisyNeighbour(
  base: string,
  keyA: string,
  keyB: string,
  options: { clients?: number; seconds?: number } = {},
): Promise<NeighbourFigures> {
  const { clients = 10, seconds = 15 } = options;
  const b = api(base, keyB);
  const measureB = async () => ({
    create: await loopFor(
      seconds,
      async (i) => void (await b.post('/v1/contacts', { name: `Neighbour ${i}` })),
    ),
    list: await loopFor(seconds, async () => void (await b.get('/v1/contacts?limit=25'))),
  });
  const idle = await measureB();
  const statuses: Record<string, number> = {};
  let running = true;
  const loop = async (client: number) => {
    for (let i = client; running; i++) {
      const response = await fetch(`${base}${EXPENSIVE_READS[i % EXPENSIVE_READS.length]}`, {
        headers: { authorization: `Bearer ${keyA}` },
      });
      await response.arrayBuffer();
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
    }
  };
  const loops = Array.from({ length: clients }, (_, client) => loop(client));
  await new Promise((resolve) => setTimeout(resolve, 1000)); // the clients fill the heavy slots first
  const noisy = await measureB();
  running = false;
  await Promise.all(loops);
  const { loadavg } = await import('node:os');
  return {
    idle,
    noisy,
    statuses,
    loadAverage: loadavg()
      .map((n) => n.toFixed(1))
      .join(' '),
  };
}
