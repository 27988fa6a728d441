// BENCH_SQL_PROF=<dir>: loaded into the benchmarked service (node --import), it times every SQLite statement
// and, when the service exits, writes <dir>/sql-<pid>.txt: per statement text, total ms, calls and the mean,
// the costliest first. Where a CPU profile says only "executeQuery", this says which statement.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const Database = createRequire(import.meta.url)('better-sqlite3');
const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1'));
const stats = new Map();
for (const method of ['run', 'all', 'get', 'iterate']) {
  const original = statement[method];
  statement[method] = function timed(...args) {
    const started = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const text = this.source.replace(/\s+/g, ' ').slice(0, 200);
      const entry = stats.get(text) ?? { calls: 0, ms: 0 };
      entry.calls++;
      entry.ms += performance.now() - started;
      stats.set(text, entry);
    }
  };
}
process.on('exit', () => {
  const rows = [...stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, 60);
  const lines = rows.map(
    ([text, s]) =>
      `${s.ms.toFixed(0).padStart(8)} ms ${String(s.calls).padStart(8)} calls ${((1000 * s.ms) / s.calls).toFixed(1).padStart(9)} us  ${text}`,
  );
  fs.writeFileSync(path.join(process.env.BENCH_SQL_PROF, `sql-${process.pid}.txt`), `${lines.join('\n')}\n`);
});
