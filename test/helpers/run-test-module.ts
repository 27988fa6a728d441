// A module the run tests register for themselves (never part of the product's registry): an operation that
// starts a run, the generic run operations for its type, and jobs whose work the tests steer by mode.
import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import { defineOperation } from '../../src/core/define-operation.ts';
import { fail, validationFailed } from '../../src/core/errors.ts';
import type { ModuleDefinition } from '../../src/core/module.ts';
import { defineRunJob, type RunWorkContext } from '../../src/core/run-job.ts';
import { runBody, runOperations } from '../../src/core/run-operations.ts';
import { Strict } from '../../src/core/schema.ts';
import { tasksModule } from '../../src/modules/tasks/index.ts';
import { buildRegistry } from '../../src/registry.ts';

/** What the test work saw: gates a test opens, and the runs whose work noticed it was stopped. */
const gates = new Map<string, { promise: Promise<void>; open: () => void }>();
export const interrupted = new Set<string>();

function gate(runId: string) {
  let entry = gates.get(runId);
  if (!entry) {
    let open!: () => void;
    const promise = new Promise<void>((resolve) => {
      open = resolve;
    });
    entry = { promise, open };
    gates.set(runId, entry);
  }
  return entry;
}

/** Lets the work of a run started with gate: true go on. */
export function openGate(runId: string): void {
  gate(runId).open();
}

function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** A read longer than the timeout, where it can be interrupted (ctx.reads). */
async function sleep(ctx: RunWorkContext): Promise<void> {
  if (ctx.dialect === 'postgres') {
    await sql`select pg_sleep(30) as wos_test_sleep`.execute(ctx.reads);
    return;
  }
  await sql`with recursive n(x) as (select 1 union all select x + 1 from n where x < 5000000000)
    select count(*) as wos_test_sleep from n`.execute(ctx.reads);
}

async function work(ctx: RunWorkContext) {
  const { mode, title, gate: gated } = ctx.payload as { mode: string; title?: string; gate?: boolean };
  try {
    if (gated) await Promise.race([gate(ctx.run.id).promise, aborted(ctx.signal)]);
    if (mode === 'fail') throw fail('resource_not_found', { message: 'The test dataset does not exist.' });
    if (mode === 'sleep') await sleep(ctx);
    if (mode === 'call' || mode === 'call_retry') {
      const body = await ctx.call(
        'create_task',
        { title: title ?? 'from a run' },
        { idempotencyKey: `${ctx.run.id}:task` },
      );
      if (mode === 'call_retry' && ctx.attempt === 1)
        throw new Error('the first attempt fails after its call');
      return { resultRef: (body.task as { id: string }).id };
    }
    return { resultRef: `test_result:${ctx.run.id}` };
  } catch (thrown) {
    if (ctx.signal.aborted || (thrown as { code?: string }).code === '57014') interrupted.add(ctx.run.id);
    throw thrown;
  }
}

const workJob = defineRunJob({
  name: 'test.work',
  timeoutSeconds: 60,
  retryLimit: 1,
  retryDelaySeconds: 1,
  work,
});
const timedJob = defineRunJob({ name: 'test.timed', timeoutSeconds: 1, retryLimit: 1, work });

const input = Strict({
  mode: Type.Union(['ok', 'fail', 'sleep', 'call', 'call_retry'].map((m) => Type.Literal(m))),
  title: Type.Optional(Type.String({ minLength: 1 })),
  gate: Type.Optional(Type.Boolean()),
  fail_after_enqueue: Type.Optional(Type.Boolean()),
});

function startOperation(name: string, job: string, path: string) {
  return defineOperation({
    name,
    module: 'data_agents',
    scopes: ['data_agents:write'],
    kind: 'action',
    starts: { runType: 'test_work', job },
    summary: 'Start a test run',
    description: 'Starts test work (the run tests only).',
    input,
    rest: { method: 'POST', path },
    responseKey: 'run',
    response: runBody(),
    handler: async (ctx, { fail_after_enqueue, ...rest }) => {
      const run = await ctx.startRun({ payload: rest });
      if (fail_after_enqueue) {
        throw validationFailed([
          { field: 'fail_after_enqueue', message: 'fails after the job was enqueued' },
        ]);
      }
      return { body: { run }, createdId: run.id };
    },
  });
}

const runs = runOperations({
  module: 'data_agents',
  runType: 'test_work',
  readScope: 'data_agents:read',
  writeScope: 'data_agents:write',
  restCollection: '/v1/test-runs',
});

export const runTestModule: ModuleDefinition = {
  name: 'data_agents',
  operations: [
    startOperation('start_test_run', workJob.name, '/v1/test-runs'),
    startOperation('start_timed_test_run', timedJob.name, '/v1/test-runs/timed'),
    runs.get,
    runs.list,
    runs.cancel,
  ],
  jobs: [workJob, timedJob],
};

/** The registry of the run tests: tasks (the tool worker calls use) and the test module. */
export const runTestRegistry = () => buildRegistry([tasksModule, runTestModule]);
