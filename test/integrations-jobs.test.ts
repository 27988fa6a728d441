// The jobs interface itself, on the backend of the database in use (pg-boss or the SQLite poller):
// keyed deduplication, retries after a thrown error, run times on the service clock, and stop.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createPgBossQueue } from '../src/jobs/pgboss-queue.ts';
import { createSqliteQueue } from '../src/jobs/sqlite-queue.ts';
import { type Job, JobTimeoutError, type QueueBackend } from '../src/jobs/types.ts';
import { Harness, MutableClock, usingPostgres } from './helpers/harness.ts';

let h: Harness;
let queue: QueueBackend & { poll?: () => Promise<void> };
const clock = new MutableClock(new Date());
const runs: Job<{ n: number; fail?: boolean }>[] = [];
const aborts: unknown[] = [];

beforeAll(async () => {
  h = await Harness.start({ clock });
  const { database, logger } = h.service.deps;
  const base = {
    db: database.db,
    dialect: database.dialect,
    config: { ...h.config, workerPollMs: 20 },
    clock,
    logger,
  };
  queue = database.dialect === 'postgres' ? createPgBossQueue(base) : createSqliteQueue(base);
  await queue.start([
    {
      name: 'test.echo',
      retryLimit: 1,
      retryDelaySeconds: 1,
      run: async (job) => {
        runs.push(job as Job<{ n: number; fail?: boolean }>);
        if ((job.payload as { fail?: boolean }).fail && job.attempt === 1)
          throw new Error('the first try fails');
      },
    },
    {
      // Waits for its signal: only the timeout declared beside it ends it.
      name: 'test.slow',
      retryLimit: 0,
      timeoutSeconds: 0.2,
      run: (job) =>
        new Promise<void>((_resolve, reject) => {
          job.signal.addEventListener('abort', () => {
            aborts.push(job.signal.reason);
            reject(job.signal.reason);
          });
        }),
    },
  ]);
});
afterAll(async () => {
  await queue.stop();
  await h.close();
});

const ran = (n: number, count: number) =>
  vi.waitFor(
    async () => {
      await queue.poll?.();
      const matching = runs.filter((r) => r.payload.n === n);
      if (matching.length < count) throw new Error(`${matching.length} of ${count} runs`);
      return matching;
    },
    { timeout: 8000, interval: 30 },
  );

describe(`job queue (${usingPostgres ? 'pg-boss' : 'sqlite'})`, () => {
  it('runs a job once per key', async () => {
    expect(queue.backend).toBe(usingPostgres ? 'pg-boss' : 'sqlite');
    expect(await queue.enqueue('test.echo', { n: 1 }, { key: 'once' })).toEqual(expect.any(String));
    expect(await queue.enqueue('test.echo', { n: 1 }, { key: 'once' })).toBeNull();
    const [job] = await ran(1, 1);
    expect(job).toMatchObject({ name: 'test.echo', attempt: 1, payload: { n: 1 } });
    expect(await queue.enqueue('test.echo', { n: 1 }, { key: 'once' })).toBeNull();
  });

  it('retries a job whose handler throws, counting attempts', async () => {
    await queue.enqueue('test.echo', { n: 2, fail: true });
    await ran(2, 1);
    // The SQLite poller schedules the retry on the service clock; pg-boss waits its retry delay.
    if (!usingPostgres) clock.advance(1500);
    const attempts = await ran(2, 2);
    expect(attempts.map((j) => j.attempt)).toEqual([1, 2]);
    expect(new Set(attempts.map((j) => j.id)).size).toBe(1);
  });

  it('waits for run times on the service clock', async () => {
    await queue.enqueue('test.echo', { n: 3 }, { runAt: new Date(clock.now().getTime() + 60_000) });
    for (let i = 0; i < 5; i++) await queue.poll?.();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(runs.filter((r) => r.payload.n === 3)).toHaveLength(0);
    if (usingPostgres) return; // pg-boss counts the delay in real time
    clock.advance(61_000);
    await ran(3, 1);
  });

  it('aborts a job at the timeout declared beside its handler', async () => {
    await queue.enqueue('test.slow', {});
    await vi.waitFor(
      async () => {
        await queue.poll?.();
        expect(aborts).toHaveLength(1);
      },
      { timeout: 8000, interval: 30 },
    );
    expect(aborts[0]).toBeInstanceOf(JobTimeoutError);
    expect((aborts[0] as Error).message).toBe('The job exceeded its timeout of 0.2 s.');
  });
});
