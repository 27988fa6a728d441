// The daily call-event rollup job (migration 0027, docs/modules/bi.md "The daily call-event rollup"): every
// hour (30 past) it rolls up each complete UTC day not yet rolled up, oldest first, at most DAYS_PER_RUN a
// run (a long history is caught up over runs), all workspaces in one grouped statement per day, the day's
// rows and the state row's move in one transaction. It also drops the days retention is about to start
// deleting raw, so the rollup never answers for a day whose raw rows are going. What reads it:
// bi/rollup-source.ts.
import type { Kysely } from 'kysely';
import type { DB } from '../../../db/tables.ts';
import { everyInterval } from '../../../jobs/interval-task.ts';
import type { JobDefinition } from '../../../jobs/types.ts';
import {
  type DayState,
  deleteDaysBefore,
  firstCallEventAt,
  insertCallEventDay,
  lockDayState,
  setDayState,
} from './call-event-days-store.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/**
 * A day is complete this long after it ends: a call event carries the time its call started and is written
 * when the call ends, so one still running at midnight lands in the day after it.
 */
export const DAY_MARGIN_MS = 15 * 60_000;
const DAYS_PER_RUN = 60;
const SYSTEM = { system: true } as const;

const iso = (ms: number) => new Date(ms).toISOString();
const floorDay = (ms: number) => Math.floor(ms / DAY) * DAY;

export interface DayRollupReport {
  /** Days rolled up in this run. */
  days: number;
  /** Rollup rows written. */
  rows: number;
  /** Rollup rows deleted by the retention cut. */
  removed: number;
  state: DayState;
}

/**
 * One pass: the retention cut, then up to `maxDays` complete days rolled up (days without any call are
 * skipped, not counted). The job's body; the tests and `npm run bench:bi` call it directly.
 */
export async function rollUpCallEventDays(
  db: Kysely<DB>,
  now: Date,
  retentionDays: number,
  options: { maxDays?: number; signal?: AbortSignal } = {},
): Promise<DayRollupReport> {
  const at = now.getTime();
  // The first day retention will not touch before the next run: the window's first whole day, a day on.
  const keepFrom = iso(Math.ceil((at - retentionDays * DAY + DAY) / DAY) * DAY);
  // Days starting before `end` are complete.
  const end = iso(floorDay(at - DAY_MARGIN_MS));
  const report: DayRollupReport = {
    days: 0,
    rows: 0,
    removed: 0,
    state: { rolled_from: '', rolled_until: '' },
  };

  report.state = await db.transaction().execute(async (trx) => {
    const state = await lockDayState(trx, SYSTEM);
    if (keepFrom <= state.rolled_from) return state;
    report.removed = await deleteDaysBefore(trx, keepFrom, SYSTEM);
    const moved = {
      rolled_from: keepFrom,
      rolled_until: state.rolled_until > keepFrom ? state.rolled_until : keepFrom,
    };
    await setDayState(trx, moved, SYSTEM);
    return moved;
  });

  const maxDays = options.maxDays ?? DAYS_PER_RUN;
  let done = false;
  while (!done && report.days < maxDays && !options.signal?.aborted) {
    report.state = await db.transaction().execute(async (trx) => {
      // Read under the lock: a concurrent run has either rolled this day up already or waits for us.
      const state = await lockDayState(trx, SYSTEM);
      if (state.rolled_until >= end) {
        done = true;
        return state;
      }
      const first = await firstCallEventAt(trx, state.rolled_until, SYSTEM);
      const day = first === null ? end : iso(floorDay(Date.parse(first)));
      if (day >= end) {
        // No call in the complete days left: they are rolled up, empty.
        done = true;
        const moved = { ...state, rolled_until: end };
        await setDayState(trx, moved, SYSTEM);
        return moved;
      }
      const next = iso(Date.parse(day) + DAY);
      report.rows += await insertCallEventDay(trx, day, next, SYSTEM);
      report.days++;
      const moved = { ...state, rolled_until: next };
      await setDayState(trx, moved, SYSTEM);
      return moved;
    });
  }
  return report;
}

export const callEventDaysJob: JobDefinition<Record<string, never>> = {
  name: 'bi.call-event-days',
  retryLimit: 1,
  timeoutSeconds: 1800,
  run: async (job, env) => {
    const report = await rollUpCallEventDays(env.db, env.clock.now(), env.config.callEventRetentionDays, {
      signal: job.signal,
    });
    if (report.days || report.removed) env.logger.info(report, 'call event days rolled up');
  },
};

/** Enqueues the rollup at 30 past every hour (keyed: one node of a deployment runs it). */
export const callEventDaysSweep = everyInterval(
  'bi.call-event-days-sweep',
  callEventDaysJob.name,
  HOUR,
  30 * 60_000,
);
