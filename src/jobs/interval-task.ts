import type { JobQueue, PeriodicTask } from './types.ts';

/**
 * A periodic task that enqueues `job` once per interval of `everyMs` on the service clock. The job is keyed
 * by its interval, so however many nodes run the task, one of them runs the job.
 */
export function everyInterval(name: string, job: string, everyMs: number): PeriodicTask {
  // The interval each queue last enqueued for: one enqueue per interval and node.
  const lastEnqueued = new WeakMap<JobQueue, number>();
  return {
    name,
    run: async (env) => {
      const interval = Math.floor(env.clock.now().getTime() / everyMs);
      if (lastEnqueued.get(env.queue) === interval) return;
      await env.queue.enqueue(job, {}, { key: `${job}:${interval}` });
      lastEnqueued.set(env.queue, interval);
    },
  };
}
