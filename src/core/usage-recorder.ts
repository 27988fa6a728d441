import type { Logger } from 'pino';
import type { TransactionRunner } from '../db/group-commit.ts';
import type { CallEventsTable } from '../db/tables.ts';
import { insertCallEvent } from './call-events.ts';

/**
 * Call events of reads and of failed calls are queued and written in batches: they are not part of any
 * write, so they need no transaction of their own, and a batch costs one commit instead of one per call.
 * Call events of writes never come here; they commit with the write.
 */
export interface UsageRecorder {
  record(row: CallEventsTable): void;
  /** Writes everything queued so far; readers of usage data call it first. */
  flush(): Promise<void>;
}

const MAX_BATCH = 200;
const MAX_DELAY_MS = 20;

/** `transaction` runs the batch's inserts atomically (on SQLite it joins the next group commit). */
export function createUsageRecorder(
  transaction: TransactionRunner,
  logger: Pick<Logger, 'error'>,
): UsageRecorder {
  let queued: CallEventsTable[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();

  const flush = (): Promise<void> => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const rows = queued;
    queued = [];
    if (rows.length > 0) {
      writing = writing
        .then(() => transaction((trx) => insertCallEvent(trx, ...rows)))
        .then(
          () => undefined,
          (err: unknown) => logger.error({ err, count: rows.length }, 'could not record call events'),
        );
    }
    return writing;
  };

  return {
    record(row) {
      queued.push(row);
      if (queued.length >= MAX_BATCH) void flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), MAX_DELAY_MS);
        timer.unref();
      }
    },
    flush,
  };
}
