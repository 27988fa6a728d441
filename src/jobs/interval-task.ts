import type { JobQueue, PeriodicTask } from './types.ts';

/**
 * A periodic task that enqueues `job` once per interval of `everyMs` on the service clock, the intervals
 * starting `offsetMs` after the clock's (10 past every hour: everyMs 1 h, offsetMs 10 min). The job is keyed
 * by its interval, so however many nodes run the task, one of them runs the job.
 */
export function everyInterval(name: string, job: string, everyMs: number, offsetMs = 0): PeriodicTask {
  // The interval each queue last enqueued for: one enqueue per interval and node.
  const lastEnqueued = new WeakMap<JobQueue, number>();
  return {
    name,
    run: async (env) => {
      const interval = Math.floor((env.clock.now().getTime() - offsetMs) / everyMs);
      if (lastEnqueued.get(env.queue) === interval) return;
      await env.queue.enqueue(job, {}, { key: `${job}:${interval}` });
      lastEnqueued.set(env.queue, interval);
    },
  };
}
