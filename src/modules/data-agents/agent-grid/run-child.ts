// What every child of a run (tool call, retrieval hit, cost event) does in its transaction: take the run
// (locked on PostgreSQL; 409 once it finished), then recompute the run's totals from the children's rows,
// moving a queued run to running.
import type { OperationContext } from '../../../core/context.ts';
import { notFound } from '../../../core/errors.ts';
import { conflictWith } from './agent-grid-shared.ts';
import type { AgentGridRunsTable, RunStatus } from './agent-grid-tables.ts';
import { type ChildKind, childTotals, findRun, toRun, updateRunRow } from './run-store.ts';

export const FINISHED: readonly RunStatus[] = ['completed', 'failed', 'canceled'];

/** The run a child is added to: resource_not_found when absent, 409 conflict when finished. */
export async function runTakingChildren(ctx: OperationContext, runId: string): Promise<AgentGridRunsTable> {
  const run = await findRun(ctx.db, ctx.workspaceId, runId, ctx.dialect);
  if (!run) throw notFound('agent grid run');
  if (FINISHED.includes(run.status)) throw conflictWith('agent grid run', run.id, run.status);
  return run;
}

/** After the child's insert: the run's totals of that kind recomputed, a queued run now running. */
export async function recomputeRun(
  ctx: OperationContext,
  run: AgentGridRunsTable,
  kind: ChildKind,
): Promise<void> {
  const totals = await childTotals(ctx.db, ctx.workspaceId, run.id, kind);
  const starts = run.status === 'queued';
  const changes: Partial<AgentGridRunsTable> = {
    ...totals,
    ...(starts ? { status: 'running' as const, started_at: ctx.now } : {}),
    updated_at: ctx.now,
  };
  await updateRunRow(ctx.db, ctx.workspaceId, run.id, changes);
  const changed = Object.keys(changes).filter(
    (field) =>
      field !== 'updated_at' &&
      changes[field as keyof AgentGridRunsTable] !== run[field as keyof AgentGridRunsTable],
  );
  ctx.audit({ targetType: 'agent_grid_run', targetId: run.id, action: 'update', changedFields: changed });
  if (starts) {
    const data = toRun({ ...run, ...changes });
    ctx.emit({ name: 'agent_grid_run.updated', targetType: 'agent_grid_run', targetId: run.id, data });
  }
}
