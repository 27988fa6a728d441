// The daily call-event rollup from the worker (bi.call-event-days at 30 past every hour): the first run rolls
// up the days before today; a day on, the day before is rolled up and today is not. Read from the state row
// (the days covered) and the rollup rows of a route only this test calls.
import { describe, expect, it, vi } from 'vitest';
import { callEventRows } from './helpers/bi-seed.ts';
import { Harness } from './helpers/harness.ts';

describe('the bi.call-event-days job', () => {
  it('rolls up each complete day from the worker', async () => {
    const worker = await Harness.start({ env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '20' } });
    try {
      const ws = await worker.workspace('Rollup job');
      const call = (at: string) =>
        callEventRows(ws.id, [['api_request', 'GET /v1/seeded', 200, 1, 1, 5, at, null]]);
      const seeded = async (day: string) =>
        (
          await worker.db
            .selectFrom('call_event_days')
            .select('calls')
            .where('workspace_id', '=', ws.id)
            .where('route', '=', 'GET /v1/seeded')
            .where('day', '=', day)
            .executeTakeFirst()
        )?.calls;
      const until = async (day: string) => {
        const row = await worker.db
          .selectFrom('call_event_days_state')
          .select('rolled_until')
          .executeTakeFirstOrThrow();
        expect(row.rolled_until).toBe(day);
      };
      // The worker's first run (at 12:00 on Nov 21) rolls up the days before today.
      await worker.worker!.tick();
      await vi.waitFor(() => until('2026-11-21T00:00:00.000Z'), { timeout: 15_000, interval: 50 });
      await worker.db
        .insertInto('call_events')
        .values([...call('2026-11-21T10:00:00.000Z'), ...call('2026-11-22T10:00:00.000Z')])
        .execute();
      // A day on (12:00 on Nov 22): Nov 21 is complete, Nov 22 not yet.
      worker.clock.advance(24 * 3_600_000);
      await worker.worker!.tick();
      await vi.waitFor(() => until('2026-11-22T00:00:00.000Z'), { timeout: 15_000, interval: 50 });
      expect(Number(await seeded('2026-11-21T00:00:00.000Z'))).toBe(1);
      expect(await seeded('2026-11-22T00:00:00.000Z')).toBeUndefined();
      worker.clock.advance(24 * 3_600_000);
      await worker.worker!.tick();
      await vi.waitFor(() => until('2026-11-23T00:00:00.000Z'), { timeout: 15_000, interval: 50 });
      expect(Number(await seeded('2026-11-22T00:00:00.000Z'))).toBe(1);
    } finally {
      await worker.close();
    }
  });
});
