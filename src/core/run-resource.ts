// The run resource: its schema (declared once; run operations answer with it) and the row mapper.
import { Type } from '@sinclair/typebox';
import type { RunsTable } from '../db/tables.ts';
import { MapOf } from './schema.ts';

export type RunStatus = RunsTable['status'];
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'completed', 'failed', 'canceled'];

const nullable = (schema: ReturnType<typeof Type.String>) => Type.Union([schema, Type.Null()]);
const timestamp = (description: string) =>
  nullable(Type.String({ format: 'date-time', description, examples: ['2026-11-21T12:00:00.000Z'] }));

/** The run resource as every run operation returns it. */
export const RunResource = Type.Object(
  {
    id: Type.String({ examples: ['run_01JDB3Y5Q0ZK8X4M2N7P9R6T3V'] }),
    run_type: Type.String({ description: 'What kind of work it is (a query run, an export, ...).' }),
    module: Type.String(),
    operation: Type.String({ description: 'The tool that started it.' }),
    status: Type.Union(RUN_STATUSES.map((s) => Type.Literal(s))),
    trigger: Type.String({ description: 'manual (a REST or MCP call), worker, schedule, ...' }),
    input: MapOf(Type.Unknown(), { description: 'What the run was asked to do.' }),
    attempts: Type.Integer({ minimum: 0, description: 'Attempts started so far (retries included).' }),
    queued_at: Type.String({ format: 'date-time' }),
    started_at: timestamp('Start of the latest attempt.'),
    finished_at: timestamp('When it completed, failed or was canceled.'),
    duration_ms: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], {
      description:
        'finished_at minus started_at; null until it finishes, or when canceled before it started.',
    }),
    error: Type.Union(
      [
        Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false }),
        Type.Null(),
      ],
      {
        description:
          'Why it failed (timeout, or an error code of the catalogue); the last error while it retries.',
      },
    ),
    result_ref: Type.Union([Type.String(), Type.Null()], {
      description: 'Where its result is, once completed.',
    }),
    request_id: Type.String({ description: 'The request that started it.' }),
    credential_id: Type.Union([Type.String(), Type.Null()], { description: 'On whose behalf it runs.' }),
  },
  { title: 'Run', additionalProperties: false },
);

export function toRunResource(row: RunsTable) {
  return {
    id: row.id,
    run_type: row.run_type,
    module: row.module,
    operation: row.operation,
    status: row.status,
    trigger: row.trigger,
    input: JSON.parse(row.input_summary) as Record<string, unknown>,
    attempts: Number(row.attempts),
    queued_at: row.queued_at,
    started_at: row.started_at,
    finished_at: row.finished_at,
    duration_ms: row.duration_ms === null ? null : Number(row.duration_ms),
    error: row.error_code ? { code: row.error_code, message: row.error_message ?? '' } : null,
    result_ref: row.result_ref,
    request_id: row.request_id,
    credential_id: row.credential_id,
  };
}
export type Run = ReturnType<typeof toRunResource>;
