import { Worker } from 'node:worker_threads';

// With wal_autocheckpoint, the committing request pays for copying the WAL into the database file (and its
// fsync) every ~1000 pages. Instead the serving connection never checkpoints, and this worker thread, with
// its own connection, runs a PASSIVE checkpoint every interval: pages rewritten many times are copied once,
// and no request waits for the copy. The WAL stays bounded by what one interval writes.
const WORKER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => {
  try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (error) { parentPort.postMessage(String(error)); }
}, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  try { db.pragma('wal_checkpoint(TRUNCATE)'); } catch {}
  db.close();
  parentPort.postMessage('stopped');
});
`;

export interface Checkpointer {
  stop(): Promise<void>;
}

export function startCheckpointer(file: string, driverPath: string, intervalMs = 1000): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, intervalMs, driver: driverPath },
  });
  worker.unref();
  return {
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          worker.terminate().then(
            () => resolve(),
            () => resolve(),
          );
        };
        worker.once('message', done);
        worker.once('error', done);
        worker.postMessage('stop');
      }),
  };
}
