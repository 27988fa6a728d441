// Shared setup of the execution job tests: a server with the worker on and a clock the tests move, two
// workspaces, and the calls the tests repeat (create, dispatch over MCP, report as a worker, details).
import { vi } from 'vitest';
import { Harness, MutableClock, type TestWorkspace } from './harness.ts';

export interface JobsFixture {
  h: Harness;
  ws: TestWorkspace;
  other: TestWorkspace;
  clock: MutableClock;
}

export async function startJobsFixture(): Promise<JobsFixture> {
  const clock = new MutableClock(new Date('2026-11-21T12:00:00.000Z'));
  const h = await Harness.start({ clock, env: { WOS_WORKER: 'on', WOS_WORKER_POLL_MS: '50' } });
  return { h, clock, ws: await h.workspace('Jobs A'), other: await h.workspace('Jobs B') };
}

/** The calls of the tests (on the fixture `get` returns when called), as ws unless another token is given. */
export function jobCalls(get: () => JobsFixture) {
  const call = (method: string, url: string, body?: unknown, token = get().ws.apiKey) =>
    get().h.request(method, url, { token, body });
  const tool = (name: string, args: unknown, token = get().ws.mcpToken) =>
    get().h.callTool(token, name, args);
  const details = async (jobId: string, token = get().ws.apiKey) =>
    (await call('GET', `/v1/data-agents/execution-jobs/${jobId}`, undefined, token)).body;
  return {
    call,
    tool,
    details,
    createJob: async (body: Record<string, unknown>, token = get().ws.apiKey) => {
      const res = await call('POST', '/v1/data-agents/execution-jobs', body, token);
      if (res.status !== 201) throw new Error(`create job: ${res.status} ${res.text}`);
      return res.body.execution_job;
    },
    dispatch: async (jobId: string, token = get().ws.mcpToken) => {
      const res = await tool('dispatch_data_agent_execution_job', { job_id: jobId }, token);
      if (res.result.isError) throw new Error(`dispatch: ${JSON.stringify(res.body)}`);
      return res.body.execution_job;
    },
    report: (jobId: string, body: Record<string, unknown>, token = get().ws.apiKey) =>
      call('PATCH', `/v1/data-agents/execution-jobs/${jobId}`, body, token),
    /** Ticks the worker until the job matches (pg-boss fetches on its own; the SQLite poller is ticked too). */
    jobWhen: (id: string, check: (job: any) => boolean) =>
      vi.waitFor(
        async () => {
          await get().h.worker!.tick();
          const job = (await details(id)).execution_job;
          if (!check(job)) throw new Error(`job is ${JSON.stringify(job)}`);
          return job;
        },
        { timeout: 20_000, interval: 50 },
      ),
  };
}
