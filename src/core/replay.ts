// An idempotent replay: a retried create or run start whose key was claimed before answers with what that
// key made, as it is now (200), and runs nothing again.
import type { Kysely } from 'kysely';
import type { DB } from '../db/tables.ts';
import type { OperationContext } from './context.ts';
import type { OperationDefinition, OperationResult } from './define-operation.ts';
import { notFound } from './errors.ts';
import { loadRecord, type RecordType } from './record-types.ts';
import { toRunResource } from './run-resource.ts';
import { requireRun } from './runs.ts';

/**
 * The answer of a replay of `op` whose key made `resourceId` (a run for run starts, else a `creates` record),
 * read in the call's transaction `trx`.
 */
export async function replayResult(
  trx: Kysely<DB>,
  ctx: OperationContext,
  op: OperationDefinition,
  creates: RecordType | undefined,
  resourceId: string,
): Promise<OperationResult> {
  if (op.starts) {
    const run = toRunResource(await requireRun(trx, ctx.workspaceId, resourceId));
    // A start whose body is more than its run (the export it made) rebuilds it with op.replay.
    const body = op.replay ? await op.replay(ctx, run) : { [op.responseKey]: run };
    return { body, createdId: run.id };
  }
  const record = await loadRecord(trx, ctx.workspaceId, creates!, resourceId, ctx.now, ctx.config.publicUrl);
  if (!record) throw notFound(creates!.type);
  const body = op.replay ? await op.replay(ctx, record) : { [creates!.key]: record };
  return { body, createdId: resourceId };
}
