// `npm run bench:bi-export`: a BI export of BENCH_EXPORT_ROWS rows (default 1,000,000) through the service
// in process (app.inject, the worker on): deals written directly (as an import would), a saved query with one
// row per deal (deal_id, currency, count, sum of amount_cents), create_bi_export, then the job streams the
// rows into a CSV asset. Prints the export's duration and the growth of this process's RSS while it ran
// (target: under 100 MB at 1,000,000 rows), and on SQLite the heavy-read worker processes' RSS too. SQLite
// by default; PostgreSQL when BENCH_DATABASE_URL is set.
import { execFileSync } from 'node:child_process';
import { benchWorkspace, injector, startInProcess } from './bench-service.ts';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const BATCH = 1000;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** RSS of this process's child processes (SQLite's heavy-read workers), in bytes. */
function childrenRss(): number {
  try {
    const out = execFileSync('ps', ['-o', 'rss=', '--ppid', String(process.pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .filter((line) => line.trim())
      .reduce((sum, line) => sum + Number(line.trim()) * 1024, 0);
  } catch {
    return 0;
  }
}

async function main(): Promise<void> {
  const { service, db, dialect, close } = await startInProcess('bi-export', {
    WOS_WORKER: 'on',
    WOS_WORKER_POLL_MS: '200',
  });
  try {
    const workspace = await benchWorkspace(db, 'BI export bench');
    const request = injector(service, workspace.key);

    const seedStarted = performance.now();
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let start = 0; start < ROWS; start += BATCH * 50) {
      await db.transaction().execute(async (trx) => {
        for (let batch = start; batch < Math.min(ROWS, start + BATCH * 50); batch += BATCH) {
          const rows = Array.from({ length: Math.min(BATCH, ROWS - batch) }, (_, i) => {
            const n = batch + i;
            const at = new Date(base + n * 1000).toISOString();
            return {
              workspace_id: workspace.id,
              id: `deal_${String(n).padStart(8, '0')}`,
              name: `Deal ${n}, "bench"`,
              stage_key: ['new', 'qualified', 'proposal', 'won', 'lost'][n % 5]!,
              amount_cents: (n % 100_000) * 100 + 99,
              currency: n % 3 === 0 ? 'EUR' : 'USD',
              company_id: null,
              contact_id: null,
              custom_fields: '{}',
              notes: null,
              closed_at: n % 5 >= 3 ? at : null,
              created_at: at,
              updated_at: at,
            };
          });
          await trx.insertInto('deals').values(rows).execute();
        }
      });
    }
    console.log(`seeded ${ROWS} deals in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s`);

    const saved = await request('POST', '/v1/bi/queries/run', {
      name: 'One row per deal',
      dataset_key: 'crm_pipeline',
      dimensions: ['deal_id', 'currency'],
      measures: [
        { aggregate: 'count', as: 'deals' },
        { column: 'amount_cents', aggregate: 'sum' },
      ],
      limit: 10,
    });

    const baseline = process.memoryUsage().rss;
    const baseMemory = process.memoryUsage();
    let peak = baseline;
    const peaks = { heapUsed: 0, heapTotal: 0, external: 0, arrayBuffers: 0 };
    let peakChildren = childrenRss();
    const sampler = setInterval(() => {
      const now = process.memoryUsage();
      peak = Math.max(peak, now.rss);
      for (const k of Object.keys(peaks) as (keyof typeof peaks)[]) peaks[k] = Math.max(peaks[k], now[k]);
    }, 50);
    const childSampler = setInterval(() => {
      peakChildren = Math.max(peakChildren, childrenRss());
    }, 1000);
    const started = performance.now();
    const created = await request('POST', '/v1/bi/exports', {
      name: 'Bench export',
      format: 'csv',
      query_id: saved.query.id,
    });
    let exported: Record<string, any> = created.export;
    while (exported.status === 'queued' || exported.status === 'running') {
      await new Promise((resolve) => setTimeout(resolve, 500));
      exported = (await request('GET', `/v1/bi/exports/${exported.id}`)).export;
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    clearInterval(childSampler);
    if (exported.status !== 'completed')
      throw new Error(`export ${exported.status}: ${JSON.stringify(exported.error)}`);
    const growth = peak - baseline;
    console.log(
      `${dialect}: exported ${exported.row_count} rows (${mb(exported.size_bytes)} CSV) in ` +
        `${seconds.toFixed(1)} s (${Math.round(exported.row_count / seconds)} rows/s)`,
    );
    console.log(
      `server RSS: baseline ${mb(baseline)}, peak ${mb(peak)}, growth ${mb(growth)} ` +
        `(target < 100 MB: ${growth < 100 * 1024 * 1024 ? 'met' : 'NOT met'})`,
    );
    console.log(
      Object.entries(peaks)
        .map(([k, v]) => `${k} ${mb(baseMemory[k as keyof typeof peaks])} -> ${mb(v)}`)
        .join(', '),
    );
    if (dialect === 'SQLite')
      console.log(`heavy-read worker processes: peak RSS ${mb(peakChildren)} together`);
  } finally {
    await close();
  }
}

await main();
