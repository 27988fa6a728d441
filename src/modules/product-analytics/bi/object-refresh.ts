// A refresh of a saved object (a report, an insight view) as one BI run. A manual refresh reads first (the
// operation's heavyRead: heavy-read connections, time limit) and catches the read's failure, so the call's
// transaction still records the failed run and the object's pointer to it; a scheduled refresh runs inside
// the scheduler's run and lets the failure fail that run.
import { performance } from 'node:perf_hooks';
import type { OperationContext } from '../../../core/context.ts';
import { ServiceError, validationFailed } from '../../../core/errors.ts';
import { type BiRelated, type BiResult, type BiRun, recordBiRun } from './run-query.ts';

export interface RefreshRead {
  result: BiResult;
  /** Metrics the query used (related objects of the run). */
  metrics: string[];
}

export type RefreshOutcome =
  | (RefreshRead & { ok: true; durationMs: number })
  | { ok: false; error: { code: string; message: string }; durationMs: number };

/** Runs a refresh's read; a ServiceError (a definition no longer valid, a timeout) becomes a failure. */
export async function readForRefresh(read: () => Promise<RefreshRead>): Promise<RefreshOutcome> {
  const started = performance.now();
  const durationMs = () => Math.round(performance.now() - started);
  try {
    return { ok: true, ...(await read()), durationMs: durationMs() };
  } catch (thrown) {
    if (!(thrown instanceof ServiceError)) throw thrown;
    return { ok: false, error: { code: thrown.code, message: thrown.message }, durationMs: durationMs() };
  }
}

/** Records a manual refresh as a finished BI run (trigger manual) in the call's transaction. */
export function recordManualRefresh(
  ctx: OperationContext,
  run: { runType: string; operation: string; target: BiRelated; outcome: RefreshOutcome },
): Promise<BiRun> {
  const { outcome } = run;
  const metrics = outcome.ok ? outcome.metrics.map((id) => ({ type: 'bi_metric', id })) : [];
  return recordBiRun(ctx.db, {
    workspaceId: ctx.workspaceId,
    runType: run.runType,
    operation: run.operation,
    trigger: ctx.surface === 'worker' ? 'schedule' : 'manual',
    input: { [`${run.target.type}_id`]: run.target.id },
    related: [run.target, ...metrics],
    status: outcome.ok ? 'completed' : 'failed',
    startedAt: ctx.now,
    durationMs: outcome.durationMs,
    rowCount: outcome.ok ? outcome.result.row_count : null,
    ...(outcome.ok ? {} : { error: outcome.error }),
    requestId: ctx.requestId,
    credentialId: ctx.actor.credentialId ?? ctx.actor.onBehalfOf ?? null,
  });
}

/** Runs `check`, naming its validation errors under `prefix` (query.dimensions[0], source.query.filters[1]). */
export async function underField<T>(prefix: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (thrown) {
    if (thrown instanceof ServiceError && thrown.code === 'validation_failed' && thrown.extras.field_errors) {
      throw validationFailed(
        thrown.extras.field_errors.map((e) => ({ ...e, field: `${prefix}.${e.field}` })),
        thrown.message,
      );
    }
    throw thrown;
  }
}
