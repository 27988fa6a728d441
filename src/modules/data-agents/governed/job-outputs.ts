// What a finished job reports, stored once whichever plane ran it: a summary, what it produced and read
// (recorded as lineage edges of the job: job produces X, job reads Y), and bounded result data.
import type { Kysely } from 'kysely';
import { validationFailed } from '../../../core/errors.ts';
import { cancelRun, findRun } from '../../../core/runs.ts';
import type { DB } from '../../../db/tables.ts';
import type { DataAgentExecutionJobsTable } from './job-tables.ts';
import type { NodeRef } from './lineage-nodes.ts';
import { insertEdges } from './lineage-store.ts';

export const MAX_OUTPUT_DATA_BYTES = 64 * 1024;
export const RUN_TYPE = 'data_agent_execution_job';

export interface JobOutput {
  summary: string;
  produced?: NodeRef[];
  reads?: NodeRef[];
  data?: unknown;
}

/** The output column's text; data over 64 KiB of JSON is validation_failed on output.data. */
export function jobOutputJson(output: JobOutput): string {
  const data = output.data === undefined ? null : output.data;
  if (Buffer.byteLength(JSON.stringify(data), 'utf8') > MAX_OUTPUT_DATA_BYTES) {
    throw validationFailed([
      { field: 'output.data', message: 'is over 64 KiB of JSON: keep a summary, store the rest' },
    ]);
  }
  const refs = (list: NodeRef[] | undefined) => (list ?? []).map(({ type, id }) => ({ type, id }));
  return JSON.stringify({
    summary: output.summary,
    produced: refs(output.produced),
    reads: refs(output.reads),
    data,
  });
}

/** The job's own lineage: it reads its inputs and produces its outputs. Existing edges are kept. */
export async function recordJobEdges(
  db: Kysely<DB>,
  job: DataAgentExecutionJobsTable,
  output: JobOutput,
  now: string,
) {
  const self = { type: 'execution_job', id: job.id };
  return insertEdges(
    db,
    job.workspace_id,
    [
      ...(output.reads ?? []).map((to) => ({ from: self, relation: 'reads' as const, to, jobId: job.id })),
      ...(output.produced ?? []).map((to) => ({
        from: self,
        relation: 'produces' as const,
        to,
        jobId: job.id,
      })),
    ],
    now,
  );
}

/** A canceled native job stops its run too (the worker sees the cancel within a second). */
export async function cancelNativeRun(db: Kysely<DB>, job: DataAgentExecutionJobsTable, now: string) {
  if (!job.run_id) return;
  const run = await findRun(db, job.workspace_id, job.run_id);
  if (run && (run.status === 'queued' || run.status === 'running')) {
    await cancelRun(db, job.workspace_id, job.run_id, RUN_TYPE, now);
  }
}
