// A write's heavy read (an operation's heavyRead: the BI query a run_bi_query then saves, the passages a
// service guide session stores): before the call's transaction, so no write lock waits on it (SQLite's group
// commit would hold every writer), on the heavy-read connections under the workspace's heavy slot and the
// heavy time limit.
import { performance } from 'node:perf_hooks';
import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { Call, PipelineDeps } from './call.ts';
import type { OperationContext } from './context.ts';
import type { OperationDefinition } from './define-operation.ts';
import { asServiceError } from './errors.ts';

/** The context of the call on a connection: (trx) for writes, (db, heavy) for the read. */
type ContextOf = (trx: Kysely<DB>, executor?: Kysely<DB>) => OperationContext;

/**
 * Runs the read and answers its result. A failure once it started is recorded by heavyReadFailed in a
 * transaction of its own (a failed BI run), then thrown: the call answers with the error.
 */
export async function runWriteHeavyRead(
  deps: PipelineDeps,
  call: Call,
  op: OperationDefinition,
  workspaceId: string,
  input: Record<string, unknown>,
  context: ContextOf,
): Promise<unknown> {
  const read = op.heavyRead!;
  let readStarted: number | undefined;
  try {
    return await deps.database.heavySlots.run(workspaceId, () => {
      readStarted = performance.now();
      return read(context(deps.database.db, deps.database.heavy), input);
    });
  } catch (thrown) {
    if (readStarted !== undefined && op.heavyReadFailed) {
      const failed = op.heavyReadFailed;
      const failure = {
        error: asServiceError(thrown),
        durationMs: Math.round(performance.now() - readStarted),
      };
      await deps.database
        .transaction((trx) => failed(context(trx), input, failure))
        .catch((err) => deps.logger.error({ err, request_id: call.requestId }, 'recording a failed read'));
    }
    throw thrown;
  }
}
