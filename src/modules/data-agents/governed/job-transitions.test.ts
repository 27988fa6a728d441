// The execution job state machine as a table: every (from, to) pair is allowed exactly when the issue's
// diagram draws it, and a refused move names the current status.
import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../core/errors.ts';
import { JOB_STATUSES, type JobStatus } from './job-schemas.ts';
import type { DataAgentExecutionJobsTable } from './job-tables.ts';
import { assertMove, moveColumns } from './job-transitions.ts';

const ALLOWED = new Set([
  'draft>queued',
  'queued>running',
  'queued>canceled',
  'running>completed',
  'running>failed',
  'running>needs_review',
  'running>canceled',
  'running>queued', // a lapsed claim with attempts left (the lease sweep)
  'needs_review>approved',
  'needs_review>rejected',
]);

const job = (status: JobStatus, startedAt: string | null = null) =>
  ({ status, started_at: startedAt }) as DataAgentExecutionJobsTable;

describe('execution job moves', () => {
  it('allows exactly the moves of the diagram', () => {
    for (const from of JOB_STATUSES) {
      for (const to of JOB_STATUSES) {
        const allowed = ALLOWED.has(`${from}>${to}`);
        if (allowed) expect(() => assertMove(job(from), to)).not.toThrow();
        else {
          let thrown: unknown;
          try {
            assertMove(job(from), to);
          } catch (error) {
            thrown = error;
          }
          expect(thrown, `${from} -> ${to}`).toBeInstanceOf(ServiceError);
          expect((thrown as ServiceError).code).toBe('conflict');
          expect((thrown as ServiceError).message).toContain(`is ${from}`);
        }
      }
    }
  });

  it('stamps the times of a move', () => {
    const now = '2026-11-21T12:00:05.000Z';
    expect(moveColumns(job('draft'), 'queued', now)).toMatchObject({ status: 'queued', queued_at: now });
    expect(moveColumns(job('queued'), 'running', now)).toMatchObject({ started_at: now });
    expect(moveColumns(job('running', '2026-11-21T12:00:00.000Z'), 'completed', now)).toMatchObject({
      finished_at: now,
      duration_ms: 5000,
      lease_expires_at: null,
    });
    expect(moveColumns(job('needs_review'), 'approved', now)).toMatchObject({ reviewed_at: now });
  });
});
